import { writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard db migrate --postgres URL`: applies the migrations the database lacks (the
 * worker's `migrate`) and prints what it applied as one JSON line (`MigrationReport`). A server it cannot reach is
 * one line on stderr naming it, password masked, and exit 1 (worth trying again); a schema newer than this Plugboard exits 6.
 */
export async function migrateCommand({ values, io }: Invocation): Promise<void> {
  const url = (values.postgres as string | undefined) ?? io.env.PLUGBOARD_POSTGRES_URL;
  if (!url) throw new UsageError('db migrate needs --postgres URL, or PLUGBOARD_POSTGRES_URL');
  const { migrate } = await import('@plugboard/worker');
  writeJsonLine(io.stdout, await migrate(url));
}
