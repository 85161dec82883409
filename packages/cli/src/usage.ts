import { describeJsonType, excerpt, formatJsonPath, InvalidInputError, jsonProblem, MAX_JSON_DEPTH } from '@plugboard/sdk';

/** The longest usage message: each value it quotes is an excerpt already; this bounds the rest. */
const MAX_USAGE_MESSAGE = 1000;

/** A command line that cannot be understood; exits 2 like any bad input. Quote values in it through `excerpt`. */
export class UsageError extends InvalidInputError {
  constructor(message: string) {
    super('plugboard', [{ path: 'arguments', message: excerpt(message, MAX_USAGE_MESSAGE) }]);
  }
}

/** Parses a JSON argument, naming the option when it is not JSON; the parser's message quotes at most an excerpt of it. */
export function jsonOption(option: string, text: string | undefined, fallback: unknown): unknown {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('plugboard', [{ path: option, message: `not valid JSON (${excerpt((error as Error).message)})` }]);
  }
}

/**
 * Parses a JSON argument that must be an object (`--input`): `null`, an array, a string or a
 * number is refused, and so is nesting deeper than `MAX_JSON_DEPTH` levels, naming the path,
 * before anything walks the value.
 */
export function jsonObjectOption(option: string, text: string | undefined, fallback: Record<string, unknown>): Record<string, unknown> {
  const value = jsonOption(option, text, fallback);
  const kind = describeJsonType(value);
  if (kind !== 'an object') throw new InvalidInputError('plugboard', [{ path: option, message: `must be a JSON object, not ${kind}` }]);
  const problem = jsonProblem(value, MAX_JSON_DEPTH);
  if (problem) throw new InvalidInputError('plugboard', [{ path: option, message: `${excerpt(formatJsonPath(problem.path))}: ${problem.message}` }]);
  return value as Record<string, unknown>;
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
