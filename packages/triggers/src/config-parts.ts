import { findSecretKeys, isSecretKey } from '@plugboard/sdk/host';
import { z } from 'zod';

/**
 * What the checks of a trigger and of a poll share: the schemas of names, instants and the
 * connection a run names, and the problems zod's shape cannot say (unknown keys, secret-like
 * connection settings). A value is never quoted (it could be a secret).
 */

/** The connection a run names: its id, and optionally where the provider is and non-secret settings. */
export interface TriggerRunConnection {
  id: string;
  baseUrl?: string;
  settings?: Record<string, unknown>;
}

/** The action each accepted delivery of a trigger starts. */
export interface TriggerRunSettings {
  connector: string;
  action: string;
  connection: TriggerRunConnection;
}

/** The provider webhook a trigger's deliveries come from: the connector's declared trigger, subscribed on the connection. */
export interface TriggerWebhookSettings {
  connector: string;
  trigger: string;
  connection: TriggerRunConnection;
}

export type Issue = { path: (string | number)[]; message: string };

export const SECRET_IN_FILE =
  'a secret never goes in the file: put it in an environment variable and name that in secretEnv';

export const name = z.string().min(1).max(128);
export const timestamp = z.iso.datetime({ offset: true });

export const connection = z.union([
  name.transform((id) => ({ id })),
  z.strictObject({
    id: name,
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
]);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys the shape does not know: a secret-like one said as such. */
export function unknownKeys(value: Record<string, unknown>, known: ReadonlySet<string>, what: string): Issue[] {
  return Object.keys(value)
    .filter((key) => !known.has(key))
    .map((key) => ({ path: [key], message: isSecretKey(key) ? SECRET_IN_FILE : `not a field of ${what}` }));
}

/** The secret-like settings of the connection a `run` (or a `webhook`) names (rule 10). */
export function connectionSecrets(run: unknown, field = 'run'): Issue[] {
  const named = isRecord(run) ? run.connection : undefined;
  return (isRecord(named) ? findSecretKeys(named.settings) : []).map((key) => ({
    path: [field, 'connection', 'settings'],
    message: `${key} looks like a secret and is refused (rule 10): the credential comes from the host`,
  }));
}

/** An issue for each entry of the list whose `field` (its id as `idOf` reads it) repeats an earlier one's. */
export function repeated(
  entries: readonly unknown[],
  where: { list: string; field: string; what: string },
  idOf: (value: unknown) => unknown = (value) => value,
): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<unknown>();
  entries.forEach((entry, index) => {
    if (!isRecord(entry)) return;
    const id = idOf(entry[where.field]);
    if (id === undefined) return;
    if (seen.has(id)) issues.push({ path: [where.list, index, where.field], message: `another ${where.what}` });
    seen.add(id);
  });
  return issues;
}
