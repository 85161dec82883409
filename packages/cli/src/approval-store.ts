import type { ApprovalStore } from '@plugboard/mcp';
import type { Invocation } from './invocation.js';
import { stateFolder } from './state.js';
import { UsageError } from './usage.js';

/**
 * The MCP server's approval store as a command names it: `fileApprovalStore` under the state
 * folder, or with `--postgres URL` `postgresApprovalStore` on the fleet's PostgreSQL (checked
 * migrated first), so that `plugboard mcp` and `plugboard approvals` share one.
 */

export interface Place {
  store: ApprovalStore;
  close(): Promise<void>;
}

/** With `beside`, `--state` may name a folder for what else the command keeps (plugboard mcp's idempotency keys). */
export async function openApprovalStore(
  { values, io }: Invocation,
  command: string,
  options: { beside?: boolean } = {},
): Promise<Place> {
  const postgres = values.postgres as string | undefined;
  const mcp = await import('@plugboard/mcp');
  if (postgres !== undefined) {
    if (values.state !== undefined && !options.beside)
      throw new UsageError(`${command}: --state and --postgres exclude each other`);
    // A server it cannot reach, or a schema without the approvals, is refused typed, its password masked.
    const { pool, close } = await (await import('@plugboard/worker')).openMigratedPool(postgres);
    return { store: mcp.postgresApprovalStore(pool), close };
  }
  const folder = stateFolder(io, values.state as string | undefined, command);
  return { store: mcp.fileApprovalStore(folder.dir), close: async () => {} };
}
