import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordSampleFixtures } from './sample/record-all.js';
import { FIXTURES_DIR } from './sample/scenarios.js';

/**
 * Port independence and determinism: two recordings against two providers on
 * two random ports, with two different canaries, give byte-identical files,
 * and the same bytes as the committed fixtures (which are therefore current).
 */

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function recordOnce(): Promise<{ dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'plugboard-port-'));
  dirs.push(dir);
  // The same shape as the committed fixtures' canary, so base64 boundaries fall alike.
  await recordSampleFixtures(dir, `canary-${randomBytes(10).toString('hex')}+/=`);
  return { dir };
}

describe('recordings do not depend on the port or the credential', () => {
  it('gives byte-identical fixtures from providers on different ports, equal to the committed ones', async () => {
    const first = await recordOnce();
    const second = await recordOnce();
    const files = (await readdir(first.dir)).sort();
    expect(files).toEqual((await readdir(FIXTURES_DIR)).filter((file) => file.endsWith('.json')).sort());
    for (const file of files) {
      const a = await readFile(join(first.dir, file), 'utf8');
      expect(await readFile(join(second.dir, file), 'utf8'), file).toBe(a);
      expect(
        await readFile(join(FIXTURES_DIR, file), 'utf8'),
        `${file}: the committed fixture is out of date; re-record it`,
      ).toBe(a);
      expect(a).not.toMatch(/127\.0\.0\.1|localhost/);
    }
  });
});
