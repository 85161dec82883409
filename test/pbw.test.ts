import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildOrder, workspacePackages } from '../scripts/fresh-build.mjs';
import { assertBuilt, cleanEnv, ROOT } from './support/packages.js';

/**
 * `./pbw plugboard` from a folder outside the repository: the command runs in the caller's
 * folder, where a person typed it, not in the repository's root.
 */

const run = promisify(execFile);
let tmp: string;

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
    // A copy of the wrapper in a folder without .tools/, a `node` that says it is 20.0.0 to the
    // wrapper's version check and is the real Node for everything else (npm itself), and a
    // machine whose global npmrc names a registry on 127.0.0.1 that answers 404 and counts.
    const clone = join(tmp, 'bootstrap');
    const bin = join(tmp, 'old-node-bin');
    const machine = join(tmp, 'machine');
    await mkdir(join(machine, 'etc'), { recursive: true });
    await mkdir(bin, { recursive: true });
    await mkdir(clone, { recursive: true });
    await copyFile(join(ROOT, 'pbw'), join(clone, 'pbw'));
    await writeFile(join(clone, 'package.json'), JSON.stringify({ packageManager: 'pnpm@12.21.0' }));
    await writeFile(
      join(bin, 'node'),
      `#!/bin/sh\nif [ "$1" = -p ] && [ "$2" = process.versions.node ]; then echo 20.0.0; exit 0; fi\nexec ${JSON.stringify(process.execPath)} "$@"\n`,
      { mode: 0o755 },
    );
    const asked: string[] = [];
    const registry = createServer((request, response) => {
      asked.push(request.url ?? '');
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    });
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    const { port } = registry.address() as AddressInfo;
    await writeFile(join(machine, 'etc', 'npmrc'), `registry=http://127.0.0.1:${port}/\n`);
    const home = join(tmp, 'home');
    await mkdir(home, { recursive: true });
    // Anything not sent to 127.0.0.1 meets a closed port.
    await writeFile(
      join(home, '.npmrc'),
      'proxy=http://127.0.0.1:9/\nhttps-proxy=http://127.0.0.1:9/\nnoproxy=127.0.0.1\nfetch-retries=0\n',
    );
    try {
      const result = await run(join(clone, 'pbw'), ['build'], {
        cwd: clone,
        env: cleanEnv({
          HOME: home,
          PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
          npm_config_prefix: machine,
          npm_config_cache: join(tmp, 'npm-cache'),
        }),
      }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? 1,
      );
      expect(result).not.toBe(0);
      expect(asked.some((path) => /node-linux-/.test(path))).toBe(true);
    } finally {
      registry.close();
    }
  }, 120_000);
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
