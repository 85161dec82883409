import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConnectorError, excerpt } from '@plugboard/sdk';
import { type Clock, systemClock } from '@plugboard/sdk/host';
import type { PendingCall } from '../call.js';

/**
 * The approvals of tool calls, kept in a folder: a file per request (written whole, renamed into
 * place), and beside it at most one decision and at most one use, each created exclusively
 * (`O_EXCL`), so two processes deciding or using one approval at once cannot both succeed:
 * the first decision stands, and an approval runs one call. Files are the owner's only (0600).
 * Nobody decides their own request (rule 9); a decision after the expiry is refused.
 */

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'used' | 'expired';

export interface Approval extends Omit<PendingCall, 'tool'> {
  id: string;
  tool: string;
  requestedAt: string;
  expiresAt: string;
  status: ApprovalStatus;
  decidedBy?: string;
  decidedAt?: string;
}

export type ApprovalRefusal =
  | 'approval_not_found'
  | 'self_approval'
  | 'approval_expired'
  | 'approval_decided'
  | 'approval_pending'
  | 'approval_used';

/** A decision or use the store refused; the message says what to do. */
export class ApprovalStoreError extends ConnectorError {
  constructor(code: ApprovalRefusal, message: string) {
    super(message, { code, retryable: false, platformStatus: code === 'approval_not_found' ? 404 : 409 });
  }
}

export interface ApprovalStore {
  /** A pending approval of the call, lasting `ttlMs`. */
  request(call: PendingCall, ttlMs: number): Promise<Approval>;
  get(id: string): Promise<Approval>;
  /** Every approval, newest first; of one status when asked. */
  list(status?: ApprovalStatus): Promise<Approval[]>;
  decide(id: string, decision: 'approved' | 'rejected', by: string): Promise<Approval>;
  /** Marks an approved approval used, once; a second use is refused. */
  use(id: string): Promise<void>;
}

const ID = /^apr_[0-9a-f]{32}$/;
const person = (name: string) => name.trim().toLowerCase();

async function createOnce(path: string, text: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

const readJson = async (path: string): Promise<Record<string, unknown> | undefined> => {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

export function fileApprovalStore(dir: string, options: { clock?: Clock } = {}): ApprovalStore {
  const clock = options.clock ?? systemClock;
  const file = (id: string, kind: 'json' | 'decision' | 'used') => join(dir, `${id}.${kind}`);
  const ready = mkdir(dir, { recursive: true, mode: 0o700 });
  const load = async (id: string): Promise<Approval> => {
    const request = ID.test(id) ? await readJson(file(id, 'json')) : undefined;
    if (!request) throw new ApprovalStoreError('approval_not_found', `no approval ${excerpt(id)} is kept here`);
    const decision = await readJson(file(id, 'decision'));
    const used = (await readJson(file(id, 'used'))) !== undefined;
    const approval = { ...request, ...decision } as unknown as Approval;
    const expired = Date.parse(approval.expiresAt) <= clock.now();
    const decided = decision?.status as ApprovalStatus | undefined;
    approval.status = used ? 'used' : (decided ?? (expired ? 'expired' : 'pending'));
    return approval;
  };
  return {
    async request(call, ttlMs) {
      await ready;
      const id = `apr_${randomBytes(16).toString('hex')}`;
      const now = clock.now();
      const approval = {
        id,
        ...call,
        requestedAt: new Date(now).toISOString(),
        expiresAt: new Date(now + ttlMs).toISOString(),
      };
      const temporary = `${file(id, 'json')}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(approval), { mode: 0o600 });
      await rename(temporary, file(id, 'json'));
      return { ...approval, status: 'pending' };
    },
    get: load,
    async list(status) {
      await ready;
      const ids = (await readdir(dir)).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5));
      const all = await Promise.all(ids.filter((id) => ID.test(id)).map(load));
      return all
        .filter((approval) => status === undefined || approval.status === status)
        .sort((a, b) => b.requestedAt.localeCompare(a.requestedAt));
    },
    async decide(id, decision, by) {
      const approval = await load(id);
      if (person(by) === '') throw new ApprovalStoreError('self_approval', 'a decision names who decides');
      if (person(by) === person(approval.requestedBy))
        throw new ApprovalStoreError(
          'self_approval',
          `${excerpt(by)} asked for approval ${id}: someone else must decide it`,
        );
      if (approval.status === 'expired')
        throw new ApprovalStoreError(
          'approval_expired',
          `approval ${id} expired at ${approval.expiresAt}: the agent asks again`,
        );
      const decided = { status: decision, decidedBy: by.trim(), decidedAt: new Date(clock.now()).toISOString() };
      if (approval.status !== 'pending' || !(await createOnce(file(id, 'decision'), JSON.stringify(decided))))
        throw new ApprovalStoreError('approval_decided', `approval ${id} was decided already`);
      return { ...approval, ...decided };
    },
    async use(id) {
      const approval = await load(id);
      if (approval.status === 'used')
        throw new ApprovalStoreError('approval_used', `approval ${id} ran its call already: ask for a new one`);
      if (approval.status !== 'approved')
        throw new ApprovalStoreError('approval_pending', `approval ${id} is ${approval.status}, not approved`);
      if (!(await createOnce(file(id, 'used'), JSON.stringify({ usedAt: new Date(clock.now()).toISOString() }))))
        throw new ApprovalStoreError('approval_used', `approval ${id} ran its call already: ask for a new one`);
    },
  };
}
