import type { InputIssue } from '@plugboard/sdk';
import { findSecretKeys, formatJsonPath, isSecretKey } from '@plugboard/sdk/host';
import { z } from 'zod';
import { TriggerConfigError } from './errors.js';

/**
 * The receiver's configuration, `{ "triggers": [ Trigger ] }`: each trigger in the platform's
 * Trigger shape plus the names of the environment variables holding its secrets (`secretEnv`,
 * `previousSecretEnv`: never a secret in the file) and an optional `run`. Checked once with zod,
 * every problem named with its path; a value is never quoted (it could be a secret).
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

/** The connection a delivery's run names: its id, and optionally where the provider is and non-secret settings. */
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
  secretEnv: string;
  previousSecretEnv?: string;
  run?: TriggerRunSettings;
}

const name = z.string().min(1).max(128);
const timestamp = z.iso.datetime({ offset: true });
const limit = (max: number) => z.number().int().min(1).max(max);

const connection = z.union([
  name.transform((id) => ({ id })),
  z.strictObject({
    id: name,
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
]);

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
  secretEnv: z.string().regex(ENV_NAME, 'the name of an environment variable'),
  previousSecretEnv: z.string().regex(ENV_NAME, 'the name of an environment variable').optional(),
  run: z.strictObject({ connector: name, action: name, connection }).optional(),
  ...PLATFORM_ONLY,
});

const KNOWN = new Set(Object.keys(trigger.shape));
const SECRET_IN_FILE = 'a secret never goes in the file: put it in an environment variable and name that in secretEnv';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Issue = { path: (string | number)[]; message: string };

/** Keys the shape does not know: a secret-like one said as such. */
function unknownKeys(value: Record<string, unknown>, known: ReadonlySet<string>, what: string): Issue[] {
  return Object.keys(value)
    .filter((key) => !known.has(key))
    .map((key) => ({ path: [key], message: isSecretKey(key) ? SECRET_IN_FILE : `not a field of ${what}` }));
}

/** Unknown keys, a second secret without its end, secret-like connection settings; read warily (the rest may be wrong too). */
function triggerProblems(value: unknown): Issue[] {
  if (!isRecord(value)) return [];
  const issues = unknownKeys(value, KNOWN, 'a trigger');
  if (value.previousSecretEnv !== undefined && (value.previousSecretValidUntil ?? null) === null)
    issues.push({
      path: ['previousSecretValidUntil'],
      message: 'required with previousSecretEnv: until when the previous secret verifies',
    });
  const connection = isRecord(value.run) ? value.run.connection : undefined;
  for (const key of isRecord(connection) ? findSecretKeys(connection.settings) : [])
    issues.push({
      path: ['run', 'connection', 'settings'],
      message: `${key} looks like a secret and is refused (rule 10): the credential comes from the host`,
    });
  return issues;
}

/** Two triggers with one triggerId or one publicId cannot both be served. */
function uniqueProblems(triggers: readonly unknown[]): Issue[] {
  const issues: Issue[] = [];
  const seen = { triggerId: new Set<unknown>(), url: new Set<unknown>() };
  triggers.forEach((entry, index) => {
    if (!isRecord(entry)) return;
    const ids = { triggerId: entry.triggerId, url: URL_PATH.exec(String(entry.url))?.[1] };
    for (const field of ['triggerId', 'url'] as const) {
      if (ids[field] === undefined) continue;
      if (seen[field].has(ids[field]))
        issues.push({
          path: ['triggers', index, field],
          message: `another trigger has this ${field === 'url' ? 'publicId' : field}`,
        });
      seen[field].add(ids[field]);
    }
  });
  return issues;
}

/** What zod's shape cannot say: each trigger's own problems, unknown keys of the file, duplicates. */
function configProblems(config: unknown): Issue[] {
  if (!isRecord(config)) return [];
  const triggers = Array.isArray(config.triggers) ? (config.triggers as unknown[]) : [];
  return [
    ...triggers.flatMap((entry, index) =>
      triggerProblems(entry).map((issue) => ({ ...issue, path: ['triggers', index, ...issue.path] })),
    ),
    ...unknownKeys(config, new Set(['triggers']), 'the configuration'),
    ...uniqueProblems(triggers),
  ];
}

const configSchema = z.looseObject({ triggers: z.array(trigger).min(1).max(1000) });

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
    ({ run, previousSecretEnv, ...fields }): TriggerSettings => ({
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
      secretEnv: fields.secretEnv,
      ...(previousSecretEnv !== undefined ? { previousSecretEnv } : {}),
      ...(run ? { run } : {}),
    }),
  );
  const config: TriggerConfig = Object.freeze({ triggers: Object.freeze(triggers) });
  checked.add(config);
  return config;
}

/** Whether a path segment can be a trigger's publicId. */
export function isPublicId(text: string): boolean {
  return PUBLIC_ID.test(text);
}
