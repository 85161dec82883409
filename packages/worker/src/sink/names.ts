import { createHash } from 'node:crypto';
import { InvalidInputError } from '@plugboard/sdk';
import pg from 'pg';

/**
 * The table a stream's records go to: a PostgreSQL identifier derived from the stream's name
 * (connector, action, connection, environment and input hash, as the executor names streams),
 * or the host's own naming, checked; always quoted where a statement names it.
 */

const SUBJECT = 'PostgreSQL sink';
/** Lower-case letters, digits and underscores, at most 63 bytes (PostgreSQL's NAMEDATALEN - 1). */
const TABLE = /^[a-z_][a-z0-9_]{0,62}$/;
const PREFIX = 'plugboard_sink_';
/** Room for the prefix and the readable part; the hash suffix (9 characters) fills the rest. */
const READABLE = 63 - 9;

/** The default table of a stream: readable from its name, unique by a hash of the whole name. */
export function defaultTableName(stream: string): string {
  const slug = stream
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const hash = createHash('sha256').update(stream).digest('hex').slice(0, 8);
  return `${`${PREFIX}${slug}`.slice(0, READABLE).replace(/_+$/, '')}_${hash}`;
}

/** A table name the host chose, refused unless it is a plain lower-case identifier; quoted. */
export function quotedTable(name: unknown): string {
  if (typeof name !== 'string' || !TABLE.test(name))
    throw new InvalidInputError(SUBJECT, [
      {
        path: 'table',
        message: 'must be 1 to 63 lower-case letters, digits and underscores, starting with a letter or underscore',
      },
    ]);
  return pg.escapeIdentifier(name);
}
