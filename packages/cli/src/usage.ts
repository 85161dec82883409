import { InvalidInputError } from '@plugboard/sdk';

/** A command line that cannot be understood; exits 2 like any bad input. */
export class UsageError extends InvalidInputError {
  constructor(message: string) {
    super('plugboard', [{ path: 'arguments', message }]);
  }
}

/** Parses a JSON argument, naming the option when it is not JSON. */
export function jsonOption(option: string, text: string | undefined, fallback: unknown): unknown {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('plugboard', [{ path: option, message: `not valid JSON (${(error as Error).message})` }]);
  }
}

export const USAGE = `Usage:
  plugboard run <connector> <action> --input '<json>' [--base-url URL] [--environment sandbox|production]
                [--connection '<json settings>'] [--connection-id ID] [--plugins DIR]
                [--state DIR] [--idempotency-key KEY] [--approval '<json decision>']
  plugboard record <connector> <action> --input '<json>' --scenario <name> [--base-url URL]
                [--environment sandbox|production] [--connection '<json settings>'] [--fixtures DIR]
                [--expect-error CODE]
  plugboard simulate <descript|insurance> [--port N] [--seed N] [--size N] [--openapi PATH]
  plugboard catalogue --out DIR
  plugboard plugins --dir DIR
  plugboard catalogue diff OLD NEW
  plugboard idempotency show KEY [--state DIR]
  plugboard idempotency settle KEY --as succeeded|failed --by NAME --reason TEXT [--result '<json>']
                [--min-age DURATION | --force] [--state DIR]

The credential comes from the environment variable PLUGBOARD_CREDENTIAL, never from an argument.
PLUGBOARD_REDIS_URL (with the ioredis package installed) shares rate budgets across processes.
PLUGBOARD_ALLOW_NETWORK (comma-separated CIDR, e.g. 127.0.0.0/8) lets address ranges through the
network policy: production runs reach public addresses only, sandbox runs also loopback.
--state DIR keeps checkpoints (an incremental source resumes where the last run's printed
pages end) and idempotency results. A write's --idempotency-key is always kept in a folder:
without --state, in $PLUGBOARD_STATE, else $XDG_STATE_HOME/plugboard, else
~/.local/state/plugboard (said on stderr); a key that cannot be kept is refused. A key left
running (its process died) or uncertain is settled with plugboard idempotency settle
(plugboard idempotency --help). An action that needs approval in production runs only
with --approval '{"digest","requestedBy","decidedBy","decision":"approved","expiresAt"}',
decided by someone else for exactly this run's digest.
Records go to stdout as JSON lines; a failure prints the platform Error as JSON on stderr.
Exit codes: 0 done, 1 the run failed, 2 bad input or usage.
`;
