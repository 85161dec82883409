import type { Invocation } from '../invocation.js';
import { runArgs } from '../action-args.js';
import { writeJsonLine } from '../io.js';
import { queuedTarget, queueUrls } from '../queue-urls.js';
import { jsonObjectOption, UsageError } from '../usage.js';

/**
 * `plugboard schedule add|list|remove`: the worker's `addSchedule`, `listSchedules` and
 * `removeSchedule`, each printing JSON lines. `add` finds the connector as `submit` does (a
 * plugin folder's checked in its own process).
 */

const UNITS = { m: 1, h: 60, d: 1440 } as const;

/** `--every 5m`, `2h`, `1d` in minutes; the bounds are the worker's to check. */
function everyMinutes(text: string): number {
  const match = /^(\d{1,7})([mhd])$/.exec(text);
  if (!match) throw new UsageError('--every must be a whole number of minutes, hours or days, e.g. 5m, 2h, 1d');
  return Number(match[1]) * UNITS[match[2] as keyof typeof UNITS];
}

export async function scheduleAddCommand(invocation: Invocation): Promise<void> {
  const { io, values } = invocation;
  const { redis, postgres } = queueUrls(values, io, 'schedule add');
  const intervalMinutes = everyMinutes(values.every as string);
  const id = values.connection as string;
  jsonObjectOption('--settings', values.settings as string | undefined, {});
  // The shared action arguments name the settings --connection and the id --connection-id.
  const args = await runArgs({
    ...invocation,
    values: { ...values, connection: values.settings, 'connection-id': id },
  });
  try {
    const { addSchedule } = await import('@plugboard/worker');
    const schedule = await addSchedule({
      redis,
      postgres,
      ...queuedTarget(args),
      source: args.action,
      connection: { ...args.connection, id },
      intervalMinutes,
    });
    writeJsonLine(io.stdout, schedule);
  } finally {
    if ('plugin' in args) await args.plugin.close();
  }
}

export async function scheduleListCommand({ io, values }: Invocation): Promise<void> {
  const target = queueUrls(values, io, 'schedule list');
  const { listSchedules } = await import('@plugboard/worker');
  for (const schedule of await listSchedules(target)) writeJsonLine(io.stdout, schedule);
}

export async function scheduleRemoveCommand({ io, values, args }: Invocation): Promise<void> {
  const target = queueUrls(values, io, 'schedule remove');
  const { removeSchedule } = await import('@plugboard/worker');
  const pollTriggerId = args[0]!;
  writeJsonLine(io.stdout, { pollTriggerId, removed: await removeSchedule(target, pollTriggerId) });
}
