import { z } from 'zod';
import {
  connection,
  connectionSecrets,
  type Issue,
  isRecord,
  name,
  repeated,
  type TriggerRunSettings,
  timestamp,
  unknownKeys,
} from './config-parts.js';

/**
 * A poll trigger of the receiver's configuration (`polls`), in the platform's PollTrigger shape:
 * `pollTriggerId`, `environment`, `status` and `intervalMinutes` are used, with a `run` naming
 * the source action each poll reads incrementally. `state`, `stateMessage`, `lastCheckedAt` and
 * `nextCheckAt` are the receiver's to keep (in its state folder): in the file they are taken, as
 * the platform's other fields, and not used.
 */

/** The bounds of a poll's settings. */
export const POLL_LIMITS = {
  /** At most 30 days between two polls. */
  intervalMinutes: 43_200,
} as const;

/** The source action a poll reads: its connection, and its input (default `{}`). */
export interface PollRunSettings extends TriggerRunSettings {
  input?: Record<string, unknown>;
}

/** A poll trigger as the receiver runs it. */
export interface PollSettings {
  pollTriggerId: string;
  environment: 'sandbox' | 'production';
  /** Only `active` polls. */
  status: string;
  intervalMinutes: number;
  run: PollRunSettings;
}

/** The platform's PollTrigger fields taken without being used: a poll copied from the platform's answer passes. */
const PLATFORM_ONLY = {
  kind: z.literal('poll').optional(),
  flowId: z.string().optional(),
  name: z.string().optional(),
  connectionId: z.string().optional(),
  operationKey: z.string().optional(),
  state: z.string().optional(),
  stateMessage: z.string().nullable().optional(),
  lastCheckedAt: timestamp.nullable().optional(),
  nextCheckAt: timestamp.nullable().optional(),
};

export const poll = z.looseObject({
  pollTriggerId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'letters, digits, _ . : - only, at most 128'),
  environment: z.enum(['sandbox', 'production']),
  status: z.string().min(1).max(64),
  intervalMinutes: z.number().int().min(1).max(POLL_LIMITS.intervalMinutes),
  run: z.strictObject({
    connector: name,
    action: name,
    connection,
    input: z.record(z.string(), z.unknown()).optional(),
  }),
  ...PLATFORM_ONLY,
});

const KNOWN = new Set(Object.keys(poll.shape));

/** What zod's shape cannot say of the polls: unknown keys, secret-like settings, a repeated pollTriggerId. */
export function pollProblems(polls: readonly unknown[]): Issue[] {
  const own = polls.flatMap((entry, index) =>
    isRecord(entry)
      ? [...unknownKeys(entry, KNOWN, 'a poll trigger'), ...connectionSecrets(entry.run)].map((issue) => ({
          ...issue,
          path: ['polls', index, ...issue.path],
        }))
      : [],
  );
  return [...own, ...repeated(polls, { list: 'polls', field: 'pollTriggerId', what: 'poll has this pollTriggerId' })];
}

/** A checked poll as the receiver keeps it. */
export function pollSettings(fields: z.infer<typeof poll>): PollSettings {
  const { connector, action, connection: named, input } = fields.run;
  return {
    pollTriggerId: fields.pollTriggerId,
    environment: fields.environment,
    status: fields.status,
    intervalMinutes: fields.intervalMinutes,
    run: { connector, action, connection: named, ...(input ? { input } : {}) },
  };
}
