import { join } from 'node:path';
import type { ApprovalStatus, ApprovalStore } from '@plugboard/mcp';
import type { Invocation } from '../invocation.js';
import { writeJsonLine } from '../io.js';
import { stateFolder } from '../state.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard approvals list|show|approve|reject`: the approvals `plugboard mcp` keeps in the state
 * folder's `approvals`. A decision the store refuses (by the one who asked, on an approval
 * decided or expired, an unknown id) exits 2: the decider fixes it, nothing is retried.
 */

/** The approvals of a state folder: `--state`, else the default one. */
export function approvalsFolder(invocation: Pick<Invocation, 'io' | 'values'>): string {
  return join(stateFolder(invocation.io, invocation.values.state as string | undefined, 'approvals').dir, 'approvals');
}

async function store(invocation: Invocation): Promise<ApprovalStore> {
  const { fileApprovalStore } = await import('@plugboard/mcp');
  return fileApprovalStore(approvalsFolder(invocation));
}

/** A refusal of the store, as a refusal of the command's input. */
async function refusedAsUsage<T>(work: () => Promise<T>): Promise<T> {
  const { ApprovalStoreError } = await import('@plugboard/mcp');
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApprovalStoreError) throw new UsageError(error.message);
    throw error;
  }
}

export async function listCommand(invocation: Invocation): Promise<void> {
  const approvals = await (await store(invocation)).list(invocation.values.status as ApprovalStatus | undefined);
  for (const approval of approvals) writeJsonLine(invocation.io.stdout, approval);
}

export async function showCommand(invocation: Invocation): Promise<void> {
  const kept = await store(invocation);
  writeJsonLine(invocation.io.stdout, await refusedAsUsage(() => kept.get(invocation.args[0] ?? '')));
}

const decideCommand = (decision: 'approved' | 'rejected') => async (invocation: Invocation) => {
  const kept = await store(invocation);
  const by = invocation.values.by as string;
  writeJsonLine(invocation.io.stdout, await refusedAsUsage(() => kept.decide(invocation.args[0] ?? '', decision, by)));
};

export const approveCommand = decideCommand('approved');
export const rejectCommand = decideCommand('rejected');
