import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock } from '@plugboard/sdk/host';
import { decisionOf } from './decision.js';
import { UnknownApprovalError } from './errors.js';
import { withLock } from './file-lock.js';
import { checkId, checkRequest, checkVerdict, consumed, decided, newApproval, personKey, reusable } from './records.js';
import { listed, listOptions } from './listing.js';
import type { ApprovalStore, PendingApproval } from './types.js';

/**
 * Approvals as files under a state folder: `approvals/<id>.json` (mode 0600, in a folder only its
 * owner reads), written whole to a flushed temporary file and renamed. Each change reads and
 * writes under the approval's lock file, so two processes deciding or using one approval take
 * turns; `approvals/pending/<hash>` names the approval a requester has pending for a digest.
 */

function writeWhole(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = openSync(temporary, 'w', 0o600);
  try {
    writeFileSync(handle, text, 'utf8');
    fsyncSync(handle);
  } finally {
    closeSync(handle);
  }
  try {
    renameSync(temporary, file);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The file store; `clock` gives the time of requests, decisions and expiry (default the system clock). */
export function fileApprovalStore(stateDir: string, options: { clock?: Clock } = {}): ApprovalStore {
  const clock = options.clock ?? systemClock;
  const dir = join(stateDir, 'approvals');
  const pendingDir = join(dir, 'pending');
  const fileOf = (id: string) => join(dir, `${id}.json`);
  const ensure = () => mkdirSync(pendingDir, { recursive: true, mode: 0o700 });
  const read = (id: string): PendingApproval => {
    const text = readText(fileOf(checkId(id)));
    if (text === undefined) throw new UnknownApprovalError(id);
    return JSON.parse(text) as PendingApproval;
  };
  const write = (approval: PendingApproval) => writeWhole(fileOf(approval.id), `${JSON.stringify(approval)}\n`);
  const change = (id: string, next: (approval: PendingApproval) => PendingApproval) =>
    withLock(`${fileOf(checkId(id))}.lock`, `approval ${id}`, () => {
      const approval = next(read(id));
      write(approval);
      return approval;
    });

  const store: ApprovalStore = {
    async request(request) {
      const checked = checkRequest(request);
      ensure();
      const key = createHash('sha256')
        .update(`${checked.digest}\n${personKey(checked.requestedBy)}`)
        .digest('hex');
      const index = join(pendingDir, key);
      return withLock(`${index}.lock`, 'an approval request', () => {
        const known = readText(index)?.trim();
        const earlier = known ? read(known) : undefined;
        if (earlier && reusable(earlier, checked, clock.now())) return earlier;
        const approval = newApproval(checked, clock.now());
        write(approval);
        writeWhole(index, approval.id);
        return approval;
      });
    },
    async get(id) {
      return read(id);
    },
    async list(options = {}) {
      const checked = listOptions(options);
      const names = readdirOrEmpty(dir).filter((name) => /^apr_[A-Za-z0-9_-]{22}\.json$/.test(name));
      return listed(
        names.map((name) => read(name.slice(0, -'.json'.length))),
        checked,
      );
    },
    async decide(id, verdict) {
      const checked = checkVerdict(verdict);
      return change(id, (approval) => decided(approval, checked, clock.now()));
    },
    async decisionFor(id) {
      return decisionOf(read(id), store);
    },
    async use(id, digest) {
      return change(id, (approval) => consumed(approval, digest));
    },
  };
  return store;
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
