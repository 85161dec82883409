import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execPath } from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { fileApprovalStore } from '../../src/index.js';
import { approvalStoreContract, requestOf } from './contract.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function stateDir(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'plugboard-approvals-'));
  folders.push(folder);
  return folder;
}

approvalStoreContract('fileApprovalStore', async (clock) => {
  const dir = await stateDir();
  return [fileApprovalStore(dir, { clock }), fileApprovalStore(dir, { clock })];
});

test('approval files are for their owner only, and no temporary or lock file is left', async () => {
  const dir = await stateDir();
  const store = fileApprovalStore(dir);
  const { id } = await store.request(requestOf());
  await store.decide(id, { decision: 'approved', by: 'bob' });
  expect((await stat(join(dir, 'approvals', `${id}.json`))).mode & 0o777).toBe(0o600);
  expect((await stat(join(dir, 'approvals'))).mode & 0o777).toBe(0o700);
  expect((await readdir(join(dir, 'approvals'))).filter((name) => /\.(tmp|lock)$/.test(name))).toEqual([]);
});

/** A process of its own on the folder, started and waiting for "go"; resolves to what it printed once done. */
function child(dir: string, ...args: string[]): Promise<{ go(): void; outcome: Promise<string> }> {
  const process = spawn(execPath, [fileURLToPath(new URL('./store-child.mjs', import.meta.url)), dir, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: process.stdout })[Symbol.asyncIterator]();
  return lines.next().then(() => ({
    go: () => process.stdin.write('go\n'),
    outcome: lines.next().then((line) => String(line.value)),
  }));
}

test('two processes deciding, then using, one approval at once: exactly one of each wins', async () => {
  const dir = await stateDir();
  const store = fileApprovalStore(dir);
  const { id, digest } = await store.request(requestOf());
  const deciders = await Promise.all([child(dir, 'approved', id, 'bob'), child(dir, 'rejected', id, 'carol')]);
  for (const each of deciders) each.go();
  expect((await Promise.all(deciders.map((each) => each.outcome))).sort()).toEqual(['approval_not_pending', 'ok']);
  const approved = await store.request(requestOf({ requestedBy: 'dan' }));
  await store.decide(approved.id, { decision: 'approved', by: 'erin' });
  const users = await Promise.all([1, 2, 3].map(() => child(dir, 'use', approved.id, digest)));
  for (const each of users) each.go();
  expect((await Promise.all(users.map((each) => each.outcome))).sort()).toEqual([
    'approval_used',
    'approval_used',
    'ok',
  ]);
  expect((await store.get(approved.id)).status).toBe('used');
});
