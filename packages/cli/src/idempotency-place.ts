import type { IdempotencyStore } from '@plugboard/sdk/host';
import type { CliIo } from './io.js';
import { ensureWritable, stateFolder } from './state.js';
import { UsageError } from './usage.js';

/**
 * Where `plugboard idempotency` finds the keys: a state folder (the file store), or with
 * `--postgres URL` the fleet's PostgreSQL (`postgresStores`), whose pool the command ends.
 */
export interface IdempotencyPlace {
  store: IdempotencyStore;
  /** How messages name it: the folder and what named it, or the server with its password masked. */
  where: string;
  close(): Promise<void>;
}

export async function idempotencyPlace(
  values: Record<string, unknown>,
  io: CliIo,
  command: string,
  writing?: string,
): Promise<IdempotencyPlace> {
  const postgres = values.postgres as string | undefined;
  if (postgres !== undefined) {
    if (values.state !== undefined) throw new UsageError(`${command}: --state and --postgres exclude each other`);
    const { openPostgresStores } = await import('@plugboard/worker');
    const opened = await openPostgresStores(postgres);
    return { store: opened.stores.idempotency, where: opened.server, close: opened.close };
  }
  const folder = stateFolder(io, values.state as string | undefined, command);
  if (writing !== undefined) await ensureWritable(folder, writing);
  const store = (await import('@plugboard/runtime')).fileStore(folder.dir).idempotency;
  return { store, where: `${folder.dir} (from ${folder.from})`, close: async () => {} };
}
