import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileCredentialStore, fileStore } from '@plugboard/runtime';
import { afterAll, beforeAll } from 'vitest';
import { describeCredentialContract } from './contract/credentials.js';
import { describeStoresContract } from './contract/stores.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'plugboard-contract-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// Another view of the state is another store on the same folder, as another process would open it.
describeStoresContract('fileStore', async () => {
  const dir = await mkdtemp(join(root, 'stores-'));
  return { stores: fileStore(dir), reopen: () => fileStore(dir) };
});
describeCredentialContract('fileCredentialStore', async () => {
  const dir = await mkdtemp(join(root, 'credentials-'));
  return { store: fileCredentialStore(dir), reopen: () => fileCredentialStore(dir) };
});
