import { describeJsonType, formatJsonPath, jsonProblem, MAX_JSON_DEPTH } from '@plugboard/sdk/host';
import { excerpt, InvalidInputError } from '@plugboard/sdk';

/** The longest usage message: each value it quotes is an excerpt already; this bounds the rest. */
const MAX_USAGE_MESSAGE = 1000;

/** A command line that cannot be understood; exits 2 like any bad input. Quote values in it through `excerpt`. */
export class UsageError extends InvalidInputError {
  constructor(message: string) {
    super('plugboard', [{ path: 'arguments', message: excerpt(message, MAX_USAGE_MESSAGE) }]);
  }
}

/** `--port N` of a command that starts a server: a port number, 0 for a free one (the default). */
export function portOption(value: unknown): { port: number; text: string } {
  const text = String(value ?? '0');
  if (!/^\d+$/.test(text) || Number(text) > 65_535)
    throw new UsageError(`--port must be a port number (0 for a free one), not '${excerpt(text)}'`);
  return { port: Number(text), text };
}

/** A server the command was to start could not listen on the port asked for. */
export function portInUse(port: string, flag = '--port'): UsageError {
  return new UsageError(`${flag} ${port}: the port is in use; pick another, or ${flag} 0 for a free one`);
}

/** Parses a JSON argument, naming the option when it is not JSON; the parser's message quotes at most an excerpt of it. */
export function jsonOption(option: string, text: string | undefined, fallback: unknown): unknown {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('plugboard', [
      { path: option, message: `not valid JSON (${excerpt((error as Error).message)})` },
    ]);
  }
}

/**
 * Parses a JSON argument that must be an object (`--input`): `null`, an array, a string or a
 * number is refused, and so is nesting deeper than `MAX_JSON_DEPTH` levels, naming the path,
 * before anything walks the value.
 */
export function jsonObjectOption(
  option: string,
  text: string | undefined,
  fallback: Record<string, unknown>,
): Record<string, unknown> {
  const value = jsonOption(option, text, fallback);
  const kind = describeJsonType(value);
  if (kind !== 'an object')
    throw new InvalidInputError('plugboard', [{ path: option, message: `must be a JSON object, not ${kind}` }]);
  const problem = jsonProblem(value, MAX_JSON_DEPTH);
  if (problem)
    throw new InvalidInputError('plugboard', [
      { path: option, message: `${excerpt(formatJsonPath(problem.path))}: ${problem.message}` },
    ]);
  return value as Record<string, unknown>;
}
