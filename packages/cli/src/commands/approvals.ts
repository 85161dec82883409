import type { ApprovalStatus, ApprovalStore, PendingApproval } from '@plugboard/mcp';
import { wantsJson, writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { stateFolder } from '../state.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard approvals`: the MCP server's approval store (`fileApprovalStore` under the state
 * folder, or with `--postgres URL` `postgresApprovalStore` on the fleet's PostgreSQL), through the
 * same library calls the server and its approval page make.
 */

interface Place {
  store: ApprovalStore;
  close(): Promise<void>;
}

async function open({ values, io }: Invocation, command: string): Promise<Place> {
  const postgres = values.postgres as string | undefined;
  const mcp = await import('@plugboard/mcp');
  if (postgres !== undefined) {
    if (values.state !== undefined) throw new UsageError(`${command}: --state and --postgres exclude each other`);
    // A server it cannot reach, or a schema without the approvals, is refused typed, its password masked.
    await (await import('@plugboard/worker')).assertMigrated(postgres);
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: postgres });
    return { store: mcp.postgresApprovalStore(pool), close: () => pool.end() };
  }
  const folder = stateFolder(io, values.state as string | undefined, command);
  return { store: mcp.fileApprovalStore(folder.dir), close: async () => {} };
}

async function withStore<T>(invocation: Invocation, command: string, work: (store: ApprovalStore) => Promise<T>) {
  const place = await open(invocation, command);
  try {
    return await work(place.store);
  } finally {
    await place.close();
  }
}

/** One approval as a person reads it: its fields, one a line. */
function lines(approval: PendingApproval): string {
  return `${Object.entries(approval)
    .map(([field, value]) => `${field}: ${value}`)
    .join('\n')}\n`;
}

function print(invocation: Invocation, approval: PendingApproval): void {
  if (wantsJson(invocation)) writeJsonLine(invocation.io.stdout, approval);
  else invocation.io.stdout.write(lines(approval));
}

/** `plugboard approvals list [--status S]`: newest first, one a line. */
export async function listCommand(invocation: Invocation): Promise<void> {
  const status = invocation.values.status as ApprovalStatus | undefined;
  const approvals = await withStore(invocation, 'approvals list', (store) =>
    store.list(status === undefined ? {} : { status }),
  );
  const json = wantsJson(invocation);
  for (const approval of approvals) {
    if (json) writeJsonLine(invocation.io.stdout, approval);
    else
      invocation.io.stdout.write(
        `${approval.id}  ${approval.status}  ${approval.connector} ${approval.action} in ${approval.environment}  asked by ${approval.requestedBy}  expires ${approval.expiresAt}\n`,
      );
  }
}

function idOf({ args }: Invocation, command: string): string {
  const [id] = args;
  if (!id) throw new UsageError(`${command} takes one approval ID`);
  return id;
}

/** `plugboard approvals show ID`. */
export async function showCommand(invocation: Invocation): Promise<void> {
  const id = idOf(invocation, 'approvals show');
  print(invocation, await withStore(invocation, 'approvals show', (store) => store.get(id)));
}

function decide(decision: 'approved' | 'rejected', command: string) {
  return async (invocation: Invocation): Promise<void> => {
    const id = idOf(invocation, command);
    const by = ((invocation.values.by as string | undefined) ?? '').trim();
    if (!by) throw new UsageError('--by NAME must name who decides');
    print(invocation, await withStore(invocation, command, (store) => store.decide(id, { decision, by })));
  };
}

/** `plugboard approvals approve ID --by NAME`. */
export const approveCommand = decide('approved', 'approvals approve');
/** `plugboard approvals reject ID --by NAME`. */
export const rejectCommand = decide('rejected', 'approvals reject');
