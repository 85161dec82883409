import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
