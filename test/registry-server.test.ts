import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type LocalRegistry, startRegistry } from './support/registry.js';

/**
 * The local registry the end-to-end tests install from keeps serving through Verdaccio's own
 * races: its tarball route asks a file's size without waiting, and on a busy machine the file is
 * already read and closed by then. That rejection used to end the registry under every later
 * request (a guide's `npm install` then saw ECONNREFUSED). The same rejection, made here with the
 * real file system inside the registry's process, on a signal from the test.
 */

// Open a file, close it, then ask its size: the order Verdaccio's route can end up in.
const RACE = `
import { closeSync, fstat, openSync } from 'node:fs';
import { promisify } from 'node:util';
process.on('SIGUSR2', async () => {
  const fd = openSync(process.execPath, 'r');
  closeSync(fd);
  await promisify(fstat)(fd);
});
`;

let tmp: string;
let registry: LocalRegistry;

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-registry-')));
  const preload = join(tmp, 'race.mjs');
  await writeFile(preload, RACE);
  registry = await startRegistry(join(tmp, 'registry'), { preload });
});

afterAll(async () => {
  await registry?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the local registry', () => {
  test('keeps serving after a tarball file is closed before its size was read (EBADF from fstat)', async () => {
    process.kill(registry.pid, 'SIGUSR2');
    await expect.poll(() => registry.log.join(''), { timeout: 30_000 }).toMatch(/EBADF|exited/);
    expect(registry.log.join('')).toContain('ignored, raced by its answer: EBADF');
    const answer = await fetch(`${registry.url}-/ping`);
    expect(answer.status, registry.log.join('')).toBe(200);
  });
});
