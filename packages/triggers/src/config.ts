import type { InputIssue } from '@plugboard/sdk';
import { formatJsonPath } from '@plugboard/sdk/host';
import { z } from 'zod';
import {
  connection,
  connectionSecrets,
  type Issue,
  isRecord,
  name,
  repeated,
  SECRET_IN_FILE,
  type TriggerRunSettings,
  type TriggerWebhookSettings,
  timestamp,
  unknownKeys,
} from './config-parts.js';
import { TriggerConfigError } from './errors.js';
import { type PollSettings, poll, pollProblems, pollSettings } from './poll-config.js';

export type { TriggerRunConnection, TriggerRunSettings, TriggerWebhookSettings } from './config-parts.js';

/**
 * The receiver's configuration, `{ "triggers": [ Trigger ], "polls": [ PollTrigger ] }`: each
 * trigger in the platform's Trigger shape plus the names of the environment variables holding its
 * secrets (`secretEnv`, `previousSecretEnv`: never a secret in the file), or instead the
 * provider `webhook` it subscribes to (whose secret the subscription keeps), and an optional `run`;
 * each poll as `poll-config.ts` says. Checked once with zod, every problem named with its path; a
 * value is never quoted (it could be a secret).
 */

/** The bounds a trigger's limits must fall within. */
export const TRIGGER_LIMITS = {
  /** The largest `maxBodyBytes`: 16 MiB. */
  maxBodyBytes: 16 * 1024 * 1024,
  maxDeliveriesPerMinute: 100_000,
  /** At most an hour: a delivery older than its retention can then never be replayed inside the tolerance. */
  timestampToleranceSeconds: 3600,
  inputRetentionDays: 3650,
} as const;

/** Where a delivery to a trigger is posted: its `url` ends in this path and the trigger's publicId. */
export const DELIVERY_PATH = '/api/connect/triggers/';

const PUBLIC_ID = /^[A-Za-z0-9_-]{1,128}$/;
const URL_PATH = /\/api\/connect\/triggers\/([A-Za-z0-9_-]{1,128})$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** A trigger as the receiver serves it: the platform's fields it uses, its publicId, the names of its secrets' variables. */
export interface TriggerSettings {
  triggerId: string;
  /** The last segment of `url`: deliveries are posted to `/api/connect/triggers/{publicId}`. */
  publicId: string;
  url: string;
  environment: 'sandbox' | 'production';
  /** Only `active` accepts deliveries. */
  status: string;
  maxBodyBytes: number;
  maxDeliveriesPerMinute: number;
  timestampToleranceSeconds: number;
  inputRetentionDays: number;
  /** Until when the predecessor secret (`previousSecretEnv`) still verifies, ISO 8601. */
  previousSecretValidUntil: string | null;
  /** Rule 13's secret; none for a trigger whose deliveries come from a provider `webhook`. */
  secretEnv?: string;
  previousSecretEnv?: string;
  run?: TriggerRunSettings;
  /** The provider webhook the receiver subscribes to, keeps, renews, and whose deliveries it verifies. */
  webhook?: TriggerWebhookSettings;
}

const limit = (max: number) => z.number().int().min(1).max(max);

/** The platform's Trigger fields the receiver takes without using: a trigger copied from the platform's answer passes. */
const PLATFORM_ONLY = {
  flowId: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  verification: z.string().optional(),
  secretLast4: z.string().max(4).nullable().optional(),
  secretRotatedAt: timestamp.nullable().optional(),
  lastDeliveryAt: timestamp.nullable().optional(),
  disabledAt: timestamp.nullable().optional(),
  createdAt: timestamp.optional(),
};

const trigger = z.looseObject({
  triggerId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'letters, digits, _ . : - only, at most 128'),
  url: z.string().max(2048).regex(URL_PATH, `must end in ${DELIVERY_PATH}{publicId} (letters, digits, _ and -)`),
  environment: z.enum(['sandbox', 'production']),
  status: z.string().min(1).max(64),
  maxBodyBytes: limit(TRIGGER_LIMITS.maxBodyBytes),
  maxDeliveriesPerMinute: limit(TRIGGER_LIMITS.maxDeliveriesPerMinute),
  timestampToleranceSeconds: limit(TRIGGER_LIMITS.timestampToleranceSeconds),
  inputRetentionDays: limit(TRIGGER_LIMITS.inputRetentionDays),
  previousSecretValidUntil: timestamp.nullable(),
  secretEnv: z.string().regex(ENV_NAME, 'the name of an environment variable').optional(),
  previousSecretEnv: z.string().regex(ENV_NAME, 'the name of an environment variable').optional(),
  run: z.strictObject({ connector: name, action: name, connection }).optional(),
  webhook: z.strictObject({ connector: name, trigger: name, connection }).optional(),
  ...PLATFORM_ONLY,
});

const KNOWN = new Set(Object.keys(trigger.shape));

/** Unknown keys, a second secret without its end, secret-like connection settings; read warily (the rest may be wrong too). */
function triggerProblems(value: unknown): Issue[] {
  if (!isRecord(value)) return [];
  const issues = unknownKeys(value, KNOWN, 'a trigger');
  if (value.previousSecretEnv !== undefined && (value.previousSecretValidUntil ?? null) === null)
    issues.push({
      path: ['previousSecretValidUntil'],
      message: 'required with previousSecretEnv: until when the previous secret verifies',
    });
  return [
    ...issues,
    ...signingProblems(value),
    ...connectionSecrets(value.run),
    ...connectionSecrets(value.webhook, 'webhook'),
  ];
}

/** Rule 13's secret, or a provider webhook whose subscription keeps the secret: one of the two. */
function signingProblems(value: Record<string, unknown>): Issue[] {
  if (value.webhook === undefined)
    return value.secretEnv === undefined
      ? [{ path: ['secretEnv'], message: 'required: the environment variable holding the signing secret' }]
      : [];
  return ['secretEnv', 'previousSecretEnv']
    .filter((key) => value[key] !== undefined)
    .map((key) => ({
      path: [key],
      message: "not with webhook: the provider signs its deliveries with the subscription's own secret",
    }));
}

/** Two triggers with one triggerId or one publicId cannot both be served. */
function uniqueProblems(triggers: readonly unknown[]): Issue[] {
  return [
    ...repeated(triggers, { list: 'triggers', field: 'triggerId', what: 'trigger has this triggerId' }),
    ...repeated(
      triggers,
      { list: 'triggers', field: 'url', what: 'trigger has this publicId' },
      (url) => URL_PATH.exec(String(url))?.[1],
    ),
  ];
}

/** What zod's shape cannot say: each trigger's and poll's own problems, unknown keys of the file, duplicates. */
function configProblems(config: unknown): Issue[] {
  if (!isRecord(config)) return [];
  const listed = (key: string) => (Array.isArray(config[key]) ? (config[key] as unknown[]) : []);
  const [triggers, polls] = [listed('triggers'), listed('polls')];
  return [
    ...triggers.flatMap((entry, index) =>
      triggerProblems(entry).map((issue) => ({ ...issue, path: ['triggers', index, ...issue.path] })),
    ),
    ...pollProblems(polls),
    ...unknownKeys(config, new Set(['triggers', 'polls']), 'the configuration'),
    // An empty list is meant: it serves nothing, and ends the webhook subscriptions the state keeps.
    ...(config.triggers === undefined && config.polls === undefined
      ? [{ path: ['triggers'], message: 'neither triggers nor polls is given (an empty list of either is taken)' }]
      : []),
    ...uniqueProblems(triggers),
  ];
}

const configSchema = z.looseObject({
  triggers: z.array(trigger).max(1000).default([]),
  polls: z.array(poll).max(1000).default([]),
});

/** Any string holding a platform signing secret (`…whsec_…`), wherever it is in the file. */
function secretValues(value: unknown, path: (string | number)[] = []): InputIssue[] {
  if (typeof value === 'string')
    return value.includes('whsec_') ? [{ path: formatJsonPath(path), message: SECRET_IN_FILE }] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    secretValues(inner, [...path, Array.isArray(value) ? Number(key) : key]),
  );
}

/** A configuration as `parseTriggerConfig` checked it. */
export interface TriggerConfig {
  readonly triggers: readonly TriggerSettings[];
  readonly polls: readonly PollSettings[];
}

/** The configurations this module checked: `createReceiver` takes one of them without checking it again. */
const checked = new WeakSet<TriggerConfig>();

/** `value` when it is a configuration `parseTriggerConfig` gave, else the check of it. */
export function checkedConfig(value: unknown): TriggerConfig {
  return typeof value === 'object' && value !== null && checked.has(value as TriggerConfig)
    ? (value as TriggerConfig)
    : parseTriggerConfig(value);
}

/**
 * The configuration checked, every problem at once: each trigger's settings, or a
 * `TriggerConfigError` naming each problem by its path.
 */
export function parseTriggerConfig(value: unknown): TriggerConfig {
  const parsed = configSchema.safeParse(value);
  const issues: InputIssue[] = [
    ...(parsed.success ? [] : (parsed.error.issues as Issue[])),
    ...configProblems(value),
  ].map((issue) => ({ path: formatJsonPath(issue.path), message: issue.message }));
  // Bounded by what JSON.parse of the file made; a value is never quoted.
  issues.push(...secretValues(value));
  if (!parsed.success || issues.length > 0) throw new TriggerConfigError(issues);
  const triggers = parsed.data.triggers.map(
    ({ run, webhook, secretEnv, previousSecretEnv, ...fields }): TriggerSettings => ({
      triggerId: fields.triggerId,
      publicId: URL_PATH.exec(fields.url)![1]!,
      url: fields.url,
      environment: fields.environment,
      status: fields.status,
      maxBodyBytes: fields.maxBodyBytes,
      maxDeliveriesPerMinute: fields.maxDeliveriesPerMinute,
      timestampToleranceSeconds: fields.timestampToleranceSeconds,
      inputRetentionDays: fields.inputRetentionDays,
      previousSecretValidUntil: fields.previousSecretValidUntil,
      ...(secretEnv !== undefined ? { secretEnv } : {}),
      ...(previousSecretEnv !== undefined ? { previousSecretEnv } : {}),
      ...(run ? { run } : {}),
      ...(webhook ? { webhook } : {}),
    }),
  );
  const polls = parsed.data.polls.map(pollSettings);
  const config: TriggerConfig = Object.freeze({ triggers: Object.freeze(triggers), polls: Object.freeze(polls) });
  checked.add(config);
  return config;
}

/** Whether a path segment can be a trigger's publicId. */
export function isPublicId(text: string): boolean {
  return PUBLIC_ID.test(text);
}
