import { InvalidInputError } from '@plugboard/sdk';

/**
 * A source tool's cursor: the checkpoint of the page before as the store keeps it (version
 * included), as base64url JSON. Opaque to the agent, and checked when it comes back: bounded,
 * well formed, then against the action's checkpoint schema when the run resumes from it.
 */

/** The longest cursor taken back: a checkpoint is a few fields. */
export const MAX_CURSOR_CHARS = 16_384;

export function encodeCursor(stored: unknown): string {
  return Buffer.from(JSON.stringify(stored), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: unknown): unknown {
  const refuse = (message: string): never => {
    throw new InvalidInputError('cursor', [{ path: 'cursor', message }]);
  };
  if (typeof cursor !== 'string' || cursor.length === 0) return refuse('must be the nextCursor of the page before');
  if (cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor))
    return refuse('is not a cursor this server gave');
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return refuse('is not a cursor this server gave');
  }
}
