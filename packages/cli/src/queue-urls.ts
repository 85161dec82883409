import type { ActionArgs, IsolatedActionArgs } from './action-args.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage.js';

/** The queue's Redis and the fleet's PostgreSQL of `submit` and `worker`: the options, else the environment (which keeps passwords out of argv). */
export function queueUrls(
  values: Record<string, unknown>,
  io: Pick<CliIo, 'env'>,
  command: string,
): { redis: string; postgres: string } {
  const redis = (values.redis as string | undefined) ?? io.env.PLUGBOARD_REDIS_URL;
  const postgres = (values.postgres as string | undefined) ?? io.env.PLUGBOARD_POSTGRES_URL;
  if (!redis) throw new UsageError(`${command} needs --redis URL, or PLUGBOARD_REDIS_URL`);
  if (!postgres) throw new UsageError(`${command} needs --postgres URL, or PLUGBOARD_POSTGRES_URL`);
  return { redis, postgres };
}

/** What a queued run (`submit`) and a schedule share of `run`'s arguments: which connector, as loaded or as a plugin, with what input. */
export function queuedTarget(args: ActionArgs | IsolatedActionArgs) {
  return {
    ...('plugin' in args
      ? { plugins: [{ package: args.plugin.package, runner: args.plugin.runner }] }
      : { connectors: [args.connector] }),
    connector: args.target.key,
    input: args.input,
    environment: args.environment,
  };
}
