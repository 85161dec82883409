import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { ROOT } from './support/packages.js';

/**
 * `scripts/check-structure.mjs`, which `pnpm lint` runs: on a temporary workspace it names each
 * function over 120 lines, each file over 500 and each import circle (type-only imports
 * counted), and exits 2 (a person must change the code; trying again would not). The repository itself
 * is held to it by `pnpm lint`.
 */

const run = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts', 'check-structure.mjs');
let tmp: string | undefined;

afterEach(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
  tmp = undefined;
});

async function workspace(files: Record<string, string>): Promise<string> {
  tmp = await mkdtemp(join(tmpdir(), 'plugboard-structure-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(tmp, path)), { recursive: true });
    await writeFile(join(tmp, path), text);
  }
  return tmp;
}

async function check(dir: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, dir]);
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

const lines = (count: number) => Array.from({ length: count }, (_, i) => `  const v${i} = ${i};`).join('\n');

describe('scripts/check-structure.mjs', () => {
  test('names a long function, a long file and a circle of type-only imports, and exits 2', async () => {
    const dir = await workspace({
      'packages/a/src/long.ts': `export function long(): number {\n${lines(125)}\n  return 0;\n}\n`,
      'packages/a/src/big.ts': `${Array.from({ length: 501 }, (_, i) => `export const c${i} = ${i};`).join('\n')}\n`,
      'packages/b/src/one.ts': "import type { Two } from './two.js';\nexport type One = { two?: Two };\n",
      'packages/b/src/two.ts': "import type { One } from './one.js';\nexport type Two = { one?: One };\n",
      'packages/b/src/leaf.ts': "import pkg from '../package.json' with { type: 'json' };\nexport const name = pkg;\n",
    });
    const { code, out } = await check(dir);
    expect(code).toBe(2);
    expect(out).toContain('packages/a/src/long.ts:1 long: 128 lines (at most 120)');
    expect(out).toContain('packages/a/src/big.ts: 501 lines (at most 500)');
    expect(out).toContain('import circle of 2 files: packages/b/src/one.ts, packages/b/src/two.ts');
    expect(out).not.toContain('leaf.ts');
  });

  test('passes a workspace within the limits', async () => {
    const dir = await workspace({
      'packages/a/src/one.ts': "import { two } from './two.js';\nexport const one = two + 1;\n",
      'packages/a/src/two.ts': 'export const two = 2;\n',
    });
    expect(await check(dir)).toEqual({ code: 0, out: '2 source files; 0 breaches\n' });
  });
});
