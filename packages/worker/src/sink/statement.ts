import { createHash } from 'node:crypto';

/**
 * The one statement that writes a page: the stream's checkpoint moved by compare-and-set, and
 * the page's records upserted only when it moved. One statement is one transaction, so a crash
 * leaves both or neither, and it costs one round trip. It is a named (prepared) statement: each
 * connection parses and plans it once per table and kind of move, then only binds and runs it.
 */

export interface PageStatement {
  /** `plugboard_sink_` and a digest of the text: one name is always one text. */
  name: string;
  text: string;
  values: unknown[];
}

/**
 * Moves the checkpoint from `from` to `to` (null `to`: stays; null `from`: none stored yet),
 * returning a row when it did: its SQL ($1 is the stream) and the values of its further parameters.
 */
function move(to: string | null, from: string | null): { sql: string; values: unknown[] } {
  // jsonb equality: the same JSON whatever the order of its fields. The row stays locked to the end.
  if (from !== null)
    return {
      sql: `UPDATE plugboard_checkpoints SET checkpoint = COALESCE($2::jsonb, checkpoint), saved_at = now()
        WHERE stream = $1 AND checkpoint = $3::jsonb RETURNING 1`,
      values: [to, from],
    };
  if (to !== null)
    return {
      sql: 'INSERT INTO plugboard_checkpoints (stream, checkpoint) VALUES ($1, $2::jsonb) ON CONFLICT (stream) DO NOTHING RETURNING 1',
      values: [to],
    };
  return { sql: 'SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM plugboard_checkpoints WHERE stream = $1)', values: [] };
}

/** Counts the page's records into the run's row when the checkpoint moved: $at is the run's id, $at+1 the count. */
const counted = (at: number) => `,
      counted AS (
        UPDATE plugboard_runs SET records_received = records_received + $${at + 1}::int,
          records_processed = records_processed + $${at + 1}::int, updated_at = now()
        WHERE id = $${at} AND EXISTS (SELECT 1 FROM moved)
      )`;

/**
 * `quoted` is the table, checked and quoted; `keys` and `records` go side by side (the records as
 * one JSON array: one parameter parsed once); with `run`, the page's records are counted in that
 * run's row in the same transaction. The statement answers `moved`: 1, or 0 when the stream was
 * not at `from` and nothing was written (nor counted).
 */
export function pageStatement(
  quoted: string,
  stream: string,
  page: { keys: string[]; records: string; to: string | null; from: string | null; run?: string | undefined },
): PageStatement {
  const moved = move(page.to, page.from);
  const keys = 2 + moved.values.length;
  const text = `WITH moved AS (${moved.sql}),
      written AS (
        INSERT INTO ${quoted} AS kept (key, record)
        SELECT key, record FROM ROWS FROM (unnest($${keys}::text[]), jsonb_array_elements($${keys + 1}::jsonb)) AS page (key, record)
        WHERE EXISTS (SELECT 1 FROM moved)
        ON CONFLICT (key) DO UPDATE SET record = excluded.record, written_at = now(), writes = kept.writes + 1
      )${page.run === undefined ? '' : counted(keys + 2)}
      SELECT count(*)::int AS moved FROM moved`;
  const name = `plugboard_sink_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
  const count = page.run === undefined ? [] : [page.run, page.keys.length];
  return { name, text, values: [stream, ...moved.values, page.keys, page.records, ...count] };
}
