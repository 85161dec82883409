import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildOrder, workspacePackages } from '../scripts/fresh-build.mjs';
import { startHttpsRegistry } from './support/https-registry.js';
import { oldNodeMachine, wrapperClone } from './support/old-machine.js';
import { assertBuilt, cleanEnv, ROOT } from './support/packages.js';

/**
 * The wrapper: `./pbw plugboard` from a folder outside the repository runs in the caller's
 * folder, where a person typed it, not in the repository's root; on a machine whose Node is too
 * old it fetches Node and pnpm with the machine's npm configuration; every document says the
 * same Node floor.
 */

const run = promisify(execFile);
let tmp: string;

/** The pnpm a fresh clone pins in the tests of the bootstrap: no pnpm on this machine has it. */
const PNPM = '99.0.0';

/** The wrapper's exit code (0 when it succeeded) and what it said on stderr. */
function runWrapper(pbw: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return run(pbw, args, { cwd: dirname(pbw), env }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code?: number; stderr?: string }) => ({ code: error.code ?? 1, stderr: error.stderr ?? '' }),
  );
}

// The wrapper installs the workspace when its lockfile changed since its last install; a test
// never installs: it needs a wrapper that ran once (`./pbw build`) on this lockfile.
const stamp = join(ROOT, 'node_modules', '.pbw-lock');
const installed = existsSync(stamp);

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-pbw-')));
  // `./pbw plugboard` builds what is stale; a test leaves the tree as it found it.
  const cli = buildOrder(workspacePackages(), ['@plugboard/cli']).map(({ folder }) => folder);
  if (installed) await assertBuilt(cli);
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(!installed)('./pbw plugboard, called from another folder', () => {
  test('new writes into the caller folder and relative paths resolve there', async () => {
    const name = `pbw-where-${process.pid}`;
    try {
      await run(join(ROOT, 'pbw'), ['plugboard', 'new', name], { cwd: tmp, env: cleanEnv() });
      expect(existsSync(join(tmp, name, 'package.json'))).toBe(true);
      expect(existsSync(join(ROOT, name))).toBe(false);
      expect(JSON.parse(readFileSync(join(tmp, name, 'package.json'), 'utf8')).name).toBe(
        `plugboard-connector-${name}`,
      );
    } finally {
      await rm(join(ROOT, name), { recursive: true, force: true });
    }
  }, 120_000);
});

describe("./pbw's bootstrap on a machine whose Node is too old", () => {
  test("installs Node with the machine's global npm configuration (its registry, CA, proxy)", async () => {
    // The machine's global npmrc names a registry on 127.0.0.1 that answers 404 and counts.
    const machine = await oldNodeMachine(join(tmp, 'bootstrap'));
    const pbw = await wrapperClone(join(tmp, 'bootstrap', 'clone'), PNPM);
    const asked: string[] = [];
    const registry = createServer((request, response) => {
      asked.push(request.url ?? '');
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    });
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    const { port } = registry.address() as AddressInfo;
    await writeFile(machine.globalNpmrc, `registry=http://127.0.0.1:${port}/\n`);
    try {
      expect((await runWrapper(pbw, ['build'], machine.env)).code).not.toBe(0);
      expect(asked.some((path) => /node-linux-/.test(path))).toBe(true);
    } finally {
      registry.close();
    }
  }, 120_000);

  test("installs pnpm under the fetched Node with the machine's global npm configuration (a CA only there)", async () => {
    // The registry is the user's; the CA its certificate chains to is trusted only by the
    // machine's global npmrc (`cafile`), which npm run by the fetched Node would not read.
    const dir = join(tmp, 'global-ca');
    const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
    const ran = join(dir, 'ran.log');
    const fetchedNode = `#!/bin/sh\nprintf '%s\\n' "$*" >> ${JSON.stringify(ran)}\nexec ${JSON.stringify(process.execPath)} "$@"\n`;
    const fakePnpm = `#!/bin/sh\nif [ "$1" = --version ]; then echo ${PNPM}; exit 0; fi\nprintf 'pnpm %s\\n' "$*" >> ${JSON.stringify(ran)}\nif [ "$1" = install ]; then mkdir -p node_modules; fi\n`;
    const registry = await startHttpsRegistry(join(dir, 'registry'), [
      {
        name: `node-linux-${arch}`,
        version: '24.0.0',
        bin: { node: 'bin/node' },
        files: { 'bin/node': { text: fetchedNode, mode: 0o755 } },
      },
      {
        name: 'pnpm',
        version: PNPM,
        bin: { pnpm: 'bin/pnpm' },
        files: { 'bin/pnpm': { text: fakePnpm, mode: 0o755 } },
      },
    ]);
    const machine = await oldNodeMachine(dir, `registry=${registry.url}\n`);
    await writeFile(machine.globalNpmrc, `cafile=${registry.caFile}\n`);
    const pbw = await wrapperClone(join(dir, 'clone'), PNPM);
    try {
      const { code, stderr } = await runWrapper(pbw, ['build'], machine.env);
      expect(code, stderr).toBe(0);
      expect(registry.asked).toEqual(
        expect.arrayContaining([`/node-linux-${arch}`, '/pnpm', `/pnpm/-/pnpm-${PNPM}.tgz`]),
      );
      const log = readFileSync(ran, 'utf8');
      // npm installed pnpm under the fetched Node, then the wrapper ran the fetched pnpm.
      expect(log).toMatch(/npm\S* install --prefix \S+\/\.tools\/pnpm .*pnpm@/);
      expect(log).toContain('pnpm install --frozen-lockfile');
      expect(log).toContain('pnpm run --silent build');
    } finally {
      await registry.stop();
    }
  }, 60_000);
});

describe('one Node floor', () => {
  test("every package's engines, the wrapper, the README and the guide say the same Node", async () => {
    const floor = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    const version = floor.replace(/^>=/, '');
    const engines = [...workspacePackages().values()].map(({ folder }) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as {
        engines?: { node?: string };
      };
      return [folder, pkg.engines?.node ?? floor];
    });
    expect(engines.filter(([, node]) => node !== floor)).toEqual([]);
    expect(readFileSync(join(ROOT, 'pbw'), 'utf8')).toContain(`node_min="${version}"`);
    const short = version.replace(/\.0$/, '');
    for (const doc of ['README.md', 'docs/authoring.md']) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      expect(text, doc).toContain(`Node ${short} or newer`);
      expect(
        [...text.matchAll(/Node (\d+(?:\.\d+)*) or newer/g)]
          .filter((match) => match[1] !== short)
          .map((match) => match[0]),
        doc,
      ).toEqual([]);
    }
  });
});
