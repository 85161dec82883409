import { excerpt } from '@plugboard/sdk';
import type { Messages } from './messages.js';
import { UsageError } from './usage.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A connection name as `flag` gave it: letters, digits, dot, dash and underscore. */
function checkedName(flag: string, given: string): string {
  if (!NAME.test(given))
    throw new UsageError(
      `${flag} ${excerpt(given)}: a connection name is letters, digits, dot, dash and underscore, at most 100, starting with a letter or digit`,
    );
  return given;
}

/**
 * The connection a command works on, `--connection-id NAME` in every command (the id its
 * checkpoints, idempotency keys and kept token set go under); undefined when none is named.
 * Where `--connection NAME` was its old spelling (`auth login`, `auth status`, `check`:
 * `oldSpelling`), that still names it, and stderr says once to use `--connection-id`.
 */
export function connectionIdOption(
  values: Record<string, unknown>,
  messages: Messages,
  oldSpelling = false,
): string | undefined {
  const id = values['connection-id'] as string | undefined;
  const old = oldSpelling ? (values.connection as string | undefined) : undefined;
  if (id !== undefined && old !== undefined)
    throw new UsageError('--connection NAME is the old spelling of --connection-id NAME: give --connection-id only');
  if (id !== undefined) return checkedName('--connection-id', id);
  if (old === undefined) return undefined;
  // A name refused is said alone; one taken, with the spelling to use.
  const name = checkedName('--connection', old);
  messages.say({ level: 'warn', message: '--connection NAME is the old spelling: use --connection-id NAME' });
  return name;
}
