import type { Database } from '../database.js';

/**
 * A stream's table, made on first use: the record's key, the record as jsonb, when it was last
 * written and how many times. Made under an advisory lock, so processes making it at once do
 * not collide; each sink remembers the tables it made.
 */

/** `quoted` is an identifier already checked and quoted (`quotedTable`). */
function definition(quoted: string): string {
  return `CREATE TABLE IF NOT EXISTS ${quoted} (
    key text PRIMARY KEY,
    record jsonb NOT NULL,
    written_at timestamptz NOT NULL DEFAULT now(),
    writes integer NOT NULL DEFAULT 1
  )`;
}

export function tableMaker(db: Database): (quoted: string) => Promise<void> {
  const made = new Map<string, Promise<void>>();
  return (quoted) => {
    let making = made.get(quoted);
    if (!making) {
      making = db.transaction(async (client) => {
        // Two CREATE TABLE IF NOT EXISTS at once may both find no table and one then fails.
        await client.query("SELECT pg_advisory_xact_lock(hashtext('plugboard_sink:' || $1))", [quoted]);
        await client.query(definition(quoted));
      });
      // A failure is not remembered: the next write tries again.
      making.catch(() => made.delete(quoted));
      made.set(quoted, making);
    }
    return making;
  };
}
