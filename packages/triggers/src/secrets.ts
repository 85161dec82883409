import type { InputIssue } from '@plugboard/sdk';
import { Redactor } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import { TriggerConfigError } from './errors.js';

/**
 * A trigger's signing secrets, read from the environment variables its configuration names.
 * They stay here, apart from the settings: nothing that prints or stores a trigger can reach them.
 */

/** The shortest signing secret taken: a shorter HMAC key is guessable. */
export const MIN_SIGNING_SECRET_LENGTH = 16;

export interface TriggerSecrets {
  secret: string;
  previousSecret?: string;
  /** Hides both secrets, in any of their forms, from what a receipt or a log keeps. */
  redactor: Redactor;
}

type Environment = Readonly<Record<string, string | undefined>>;

function read(env: Environment, variable: string, path: string, issues: InputIssue[]): string | undefined {
  const value = env[variable];
  if (value === undefined || value === '')
    issues.push({ path, message: `the environment variable ${variable} is not set` });
  else if (value.length < MIN_SIGNING_SECRET_LENGTH)
    issues.push({
      path,
      message: `the environment variable ${variable} holds fewer than ${MIN_SIGNING_SECRET_LENGTH} characters`,
    });
  else return value;
  return undefined;
}

/** Each trigger's secrets by triggerId, or a `TriggerConfigError` naming each variable that is missing or too short. */
export function resolveSecrets(triggers: readonly TriggerSettings[], env: Environment): Map<string, TriggerSecrets> {
  const issues: InputIssue[] = [];
  const secrets = new Map<string, TriggerSecrets>();
  triggers.forEach((trigger, index) => {
    // A provider webhook's secret is the subscription's, kept in the state folder.
    if (trigger.secretEnv === undefined) return;
    const secret = read(env, trigger.secretEnv, `triggers[${index}].secretEnv`, issues);
    const previousSecret =
      trigger.previousSecretEnv === undefined
        ? undefined
        : read(env, trigger.previousSecretEnv, `triggers[${index}].previousSecretEnv`, issues);
    if (secret === undefined) return;
    secrets.set(trigger.triggerId, {
      secret,
      ...(previousSecret !== undefined ? { previousSecret } : {}),
      redactor: new Redactor([secret, ...(previousSecret !== undefined ? [previousSecret] : [])]),
    });
  });
  if (issues.length > 0) throw new TriggerConfigError(issues);
  return secrets;
}
