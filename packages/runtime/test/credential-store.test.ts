import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CredentialStore, memoryCredentialStore } from '@plugboard/sdk/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileCredentialStore } from '../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-credentials-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const first = { accessToken: 'access-1-abcdef', refreshToken: 'refresh-1-abcdef', expiresAt: 1_000 };
const second = { accessToken: 'access-2-abcdef', refreshToken: 'refresh-2-abcdef', expiresAt: 2_000 };
const third = { accessToken: 'access-3-abcdef', expiresAt: 3_000 };

describe.each([
  ['memory', () => memoryCredentialStore()],
  ['file', () => fileCredentialStore(dir)],
])('%s credential store', (_name, make: () => CredentialStore) => {
  it('writes only over the entry it read: compare and set by version', async () => {
    const store = make();
    expect(await store.read('conn_1')).toBeUndefined();
    expect(await store.compareAndSet('conn_1', undefined, first)).toBe(true);
    // A second writer that also read nothing loses.
    expect(await store.compareAndSet('conn_1', undefined, second)).toBe(false);
    const read = await store.read('conn_1');
    expect(read).toEqual({ version: 1, tokens: first });
    expect(await store.compareAndSet('conn_1', read, second)).toBe(true);
    // The writer that read version 1 too loses once version 2 is there.
    expect(await store.compareAndSet('conn_1', read, third)).toBe(false);
    expect(await store.read('conn_1')).toEqual({ version: 2, tokens: second });
    expect(await store.read('conn_2')).toBeUndefined();
  });

  it("keeps a set whole, the token lifecycle's mark of a refused refresh token too", async () => {
    const store = make();
    const marked = { ...first, refreshRefused: createHash('sha256').update(first.refreshToken).digest('hex') };
    expect(await store.compareAndSet('conn_1', undefined, marked)).toBe(true);
    expect(await store.read('conn_1')).toEqual({ version: 1, tokens: marked });
  });

  it('lets exactly one of writers racing from the same read win', async () => {
    const store = make();
    await store.compareAndSet('conn_1', undefined, first);
    const read = await store.read('conn_1');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        store.compareAndSet('conn_1', read, { accessToken: `access-race-${index}` }),
      ),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const winner = outcomes.indexOf(true);
    expect(await store.read('conn_1')).toEqual({ version: 2, tokens: { accessToken: `access-race-${winner}` } });
  });
});

describe('file credential store', () => {
  it('keeps each connection in a file only its owner may read, whole, with nothing left beside it', async () => {
    const store = fileCredentialStore(dir);
    await store.compareAndSet('conn_1', undefined, first);
    await store.compareAndSet('conn_1', await store.read('conn_1'), second);
    const folder = join(dir, 'credentials');
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    const files = await readdir(folder);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{40}\.json$/);
    expect((await stat(join(folder, files[0]!))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(join(folder, files[0]!), 'utf8'))).toMatchObject({
      key: 'conn_1',
      value: { version: 2, tokens: second },
    });
    // Another store on the same folder (another process) reads what this one wrote.
    expect(await fileCredentialStore(dir).read('conn_1')).toEqual({ version: 2, tokens: second });
  });
});
