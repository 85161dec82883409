import { excerpt } from '@plugboard/sdk';
import { UsageError } from './usage.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** `--connection NAME` of `auth login` and `check` (default `default`): the connection id `run --connection-id` names. */
export function connectionName(given: string | undefined): string {
  if (given === undefined) return 'default';
  if (!NAME.test(given))
    throw new UsageError(
      `--connection ${excerpt(given)}: a connection name is letters, digits, dot, dash and underscore, at most 100, starting with a letter or digit`,
    );
  return given;
}
