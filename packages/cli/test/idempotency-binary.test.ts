import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { items, reply, startShopProvider } from '@plugboard/example-connector';
import { delay, type FaultServer, startFaultServer } from '@plugboard/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo, seen, TOKEN } from './support.js';

/** The built `plugboard` binary, as a user runs it. */
const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../../tools/example-connector', import.meta.url));
const ORDER = ['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":2}'];

let server: FaultServer;
let home: string;
let plugins: string;
beforeAll(async () => {
  server = await startShopProvider({ items: items(3), token: TOKEN });
  home = await mkdtemp(join(tmpdir(), 'plugboard-keys-'));
  // A plugin folder as npm leaves it, holding the shop connector (billable orders.create).
  plugins = join(home, 'plugins');
  const shopPackage = join(plugins, 'node_modules', 'shop-connector');
  await mkdir(shopPackage, { recursive: true });
  const sdk = JSON.parse(await readFile(fileURLToPath(new URL('../../sdk/package.json', import.meta.url)), 'utf8')) as {
    version: string;
  };
  await writeFile(
    join(shopPackage, 'package.json'),
    JSON.stringify({
      name: 'shop-connector',
      version: '1.2.0',
      type: 'module',
      dependencies: { '@plugboard/example-connector': '*' },
      plugboard: { connector: './index.js', sdk: `^${sdk.version}` },
    }),
  );
  // The connector comes from a dependency installed beside it: a plugin reads its own package and its dependencies only.
  await mkdir(join(shopPackage, 'node_modules', '@plugboard'), { recursive: true });
  await symlink(EXAMPLE, join(shopPackage, 'node_modules', '@plugboard', 'example-connector'), 'dir');
  await writeFile(join(shopPackage, 'index.js'), `export { default } from '@plugboard/example-connector/connector';\n`);
});
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

let state: string;
beforeEach(async () => {
  server.clear();
  state = await mkdtemp(join(home, 'state-'));
});

/** The environment of every command: HOME and PLUGBOARD_STATE in the temporary folder, nothing written elsewhere. */
function environment(): NodeJS.ProcessEnv {
  const { XDG_STATE_HOME: _xdg, PLUGBOARD_STATE: _state, ...rest } = process.env;
  return { ...rest, HOME: home, PLUGBOARD_STATE: state, PLUGBOARD_CREDENTIAL: TOKEN };
}

function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { env: environment() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

const plugboard = (args: string[]) => start(args).done;
/**
 * `idempotency show` and `settle` through runCli in this process, on the same state folder: what the
 * processes left on disk is what they read, and each needs no Node start of its own.
 */
async function keys(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { io, stdout, stderr } = bufferIo(environment());
  const code = await runCli(args, io);
  return { code, stdout: stdout(), stderr: stderr() };
}
const order = (key: string) =>
  plugboard([...ORDER, '--base-url', server.url, '--plugins', plugins, '--idempotency-key', key]);
const writes = () => seen(server).filter((line) => line === 'POST /orders').length;
const lastLine = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!) as Record<string, any>;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Starts a keyed order whose request the provider never answers, and kills the process once the request arrived. */
async function killedMidRequest(key: string): Promise<void> {
  server.next(delay(30_000));
  const { child, done } = start([...ORDER, '--base-url', server.url, '--plugins', plugins, '--idempotency-key', key]);
  await until(() => writes() > 0);
  child.kill('SIGKILL');
  expect((await done).signal).toBe('SIGKILL');
}

describe('idempotency keys of the plugboard binary', () => {
  it('two processes, one key, no --state: the provider sees one write, the second process prints the replayed result', async () => {
    const first = await order('order-2026-001');
    expect(first.code).toBe(0);
    const kept = {
      level: 'info',
      message: `idempotency key order-2026-001 is kept in ${state} (from PLUGBOARD_STATE; --state DIR keeps it elsewhere)`,
    };
    expect(
      first.stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([kept]);
    const second = await order('order-2026-001');
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(JSON.parse(second.stdout)).toEqual({ order_id: expect.stringMatching(/^ord_/), amount: '20.00' });
    expect(second.stderr).toContain(
      'replayed: the first result under idempotency key order-2026-001; nothing was sent',
    );
    expect(writes()).toBe(1);
  });

  it("a second process while the first one's write is in flight is refused, not sent", async () => {
    // The provider holds the first write until the second process has ended, however long either takes to start.
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = await startFaultServer(async (request) => {
      if (request.method !== 'POST') return reply(404, { message: 'no such path' });
      await released;
      return reply(201, { order_id: 'ord_slow', amount: '20.00' });
    });
    try {
      const keyed = ['--base-url', held.url, '--plugins', plugins, '--idempotency-key', 'order-2026-002'];
      const first = start([...ORDER, ...keyed]).done;
      await until(() => held.count > 0);
      const second = await plugboard([...ORDER, ...keyed]);
      release();
      expect(second.code).toBe(6);
      expect(lastLine(second.stderr)).toMatchObject({
        code: 'conflict',
        statusCode: 409,
        message: expect.stringContaining('has not finished'),
      });
      expect(await first).toMatchObject({ code: 0, stdout: '{"order_id":"ord_slow","amount":"20.00"}\n' });
      expect(held.count).toBe(1);
    } finally {
      release();
      await held.close();
    }
  });

  it('a process killed mid-request leaves the key running; settled failed, the next run writes again', async () => {
    await killedMidRequest('order-2026-003');
    const shown = await keys(['idempotency', 'show', 'order-2026-003']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      key: 'order-2026-003',
      state: 'running',
      connector: 'shop',
      action: 'orders.create',
      digest: expect.stringMatching(/^sha256:/),
      startedAt: expect.any(String),
      decisions: [],
    });
    expect((await order('order-2026-003')).code).toBe(6);

    const settle = [
      'idempotency',
      'settle',
      'order-2026-003',
      '--as',
      'failed',
      '--by',
      'ops@example.com',
      '--reason',
      'no such order in the provider console',
    ];
    const refused = await keys(settle);
    expect(refused.code).toBe(6);
    expect(lastLine(refused.stderr)).toMatchObject({ code: 'conflict', message: expect.stringContaining('--force') });
    const settled = await keys([...settle, '--force']);
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout)).toMatchObject({
      state: 'released',
      decisions: [{ as: 'failed', by: 'ops@example.com', before: { state: 'running' } }],
    });

    const again = await order('order-2026-003');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ amount: '20.00' });
    expect(writes()).toBe(2);
    expect(JSON.parse((await keys(['idempotency', 'show', 'order-2026-003'])).stdout)).toMatchObject({
      state: 'succeeded',
      decisions: [{ as: 'failed' }],
    });
  });

  it("a process killed mid-request, settled succeeded with the provider's order: the next run replays it and writes nothing", async () => {
    await killedMidRequest('order-2026-004');
    const found = { order_id: 'ord_seen_in_console', amount: '20.00' };
    const settled = await keys([
      'idempotency',
      'settle',
      'order-2026-004',
      '--as',
      'succeeded',
      '--by',
      'ops@example.com',
      '--reason',
      'the order is in the provider console',
      '--result',
      JSON.stringify(found),
      '--force',
    ]);
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout)).toMatchObject({
      state: 'succeeded',
      result: found,
      decision: { as: 'succeeded', by: 'ops@example.com' },
    });
    const repeat = await order('order-2026-004');
    expect(repeat.code).toBe(0);
    expect(JSON.parse(repeat.stdout)).toEqual(found);
    expect(repeat.stderr).toContain('replayed');
    expect(writes()).toBe(1);
  });
});
