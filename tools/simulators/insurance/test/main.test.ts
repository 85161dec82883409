import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../src/index.js';
import { quoteRequest } from './harness.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
let outDir: string;

// Bundles the current src/main.ts into a scratch directory, so the test runs today's source
// without depending on (or rewriting) the package's dist.
beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'insurance-sim-main-'));
  const tsupPackage = createRequire(import.meta.url).resolve('tsup/package.json');
  execFileSync(
    process.execPath,
    [
      join(dirname(tsupPackage), 'dist/cli-default.js'),
      'src/main.ts',
      '--no-config',
      '--format',
      'esm',
      '--out-dir',
      outDir,
    ],
    { cwd: packageDir, stdio: 'ignore' },
  );
});

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('node main.js', () => {
  it('prints {url, apiKey} as one JSON line, serves on it, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(outDir, 'main.js'), '--port', '0', '--seed', '9'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const printed = JSON.parse(line) as { url: string; apiKey: string };
    expect(printed).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), apiKey: DEFAULT_API_KEY });

    const reply = await fetch(`${printed.url}/v1/hospital-cash/basic/quotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${printed.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(quoteRequest()),
    });
    expect(reply.status).toBe(201);

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  });

  it('refuses a port that is not a number', async () => {
    const child = spawn(process.execPath, [join(outDir, 'main.js'), '--port', 'eighty'], { stdio: 'ignore' });
    expect(await once(child, 'exit')).toEqual([2, null]);
  });
});
