import type { ApprovalStatus, ApprovalStore, PendingApproval } from '@plugboard/mcp';
import { openApprovalStore } from '../approval-store.js';
import { wantsJson, writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard approvals`: the MCP server's approval store (`fileApprovalStore` under the state
 * folder, or with `--postgres URL` `postgresApprovalStore` on the fleet's PostgreSQL), through the
 * same library calls the server and its approval page make.
 */

async function withStore<T>(invocation: Invocation, command: string, work: (store: ApprovalStore) => Promise<T>) {
  const place = await openApprovalStore(invocation, command);
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
