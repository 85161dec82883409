import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileStore } from '@plugboard/runtime';
import { items, reply, shop, shopAnswer, startShopProvider } from '@plugboard/example-connector';
import { delay, type FaultServer } from '@plugboard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo, seen, TOKEN } from './support.js';

const pack = new Map([['shop', shop]]);
const ORDER = ['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1}'];
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
const lastError = (text: string) => lines(text).at(-1)!;
const HOURS_AGO = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

let server: FaultServer;
let home: string;
let state: string;
beforeEach(async () => {
  server = await startShopProvider({ items: items(5), token: TOKEN });
  // Every folder a test may write in is temporary: HOME too, so no default reaches the real one.
  home = await mkdtemp(join(tmpdir(), 'plugboard-home-'));
  state = join(home, 'state');
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

const posts = () => seen(server).filter((line) => line.startsWith('POST'));
/** The environment of a command: the credential, HOME in the temporary folder, and more. */
const env = (more: Record<string, string | undefined> = {}) => ({ PLUGBOARD_CREDENTIAL: TOKEN, HOME: home, ...more });

async function cli(argv: string[], environment = env({ PLUGBOARD_STATE: state })) {
  const buffers = bufferIo(environment);
  const code = await runCli(argv, buffers.io, { pack });
  return { code, stdout: buffers.stdout(), stderr: buffers.stderr() };
}

describe('plugboard run --idempotency-key without --state', () => {
  it('keeps the key in PLUGBOARD_STATE, says so on stderr in one line, and a second command replays', async () => {
    const first = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-1']);
    expect(first.code).toBe(0);
    expect(lines(first.stderr)).toEqual([
      {
        level: 'info',
        message: `idempotency key order-1 is kept in ${state} (from PLUGBOARD_STATE; --state DIR keeps it elsewhere)`,
      },
    ]);
    expect(await readdir(join(state, 'idempotency'))).toHaveLength(1);
    const second = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-1']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toContain('replayed: the first result under idempotency key order-1; nothing was sent');
    expect(posts()).toHaveLength(1);
  });

  it('falls back to $XDG_STATE_HOME/plugboard, then ~/.local/state/plugboard; a relative XDG_STATE_HOME is ignored', async () => {
    const xdg = join(home, 'xdg');
    const viaXdg = await cli(
      [...ORDER, '--base-url', server.url, '--idempotency-key', 'k-xdg'],
      env({ XDG_STATE_HOME: xdg }),
    );
    expect(viaXdg.code).toBe(0);
    expect(viaXdg.stderr).toContain(`kept in ${join(xdg, 'plugboard')} (from XDG_STATE_HOME`);
    expect(await readdir(join(xdg, 'plugboard', 'idempotency'))).toHaveLength(1);
    const viaHome = await cli(
      [...ORDER, '--base-url', server.url, '--idempotency-key', 'k-home'],
      env({ XDG_STATE_HOME: 'relative/state' }),
    );
    expect(viaHome.code).toBe(0);
    expect(viaHome.stderr).toContain(`kept in ${join(home, '.local', 'state', 'plugboard')} (from HOME`);
    expect(await readdir(join(home, '.local', 'state', 'plugboard', 'idempotency'))).toHaveLength(1);
  });

  it('with --state, keeps the key there and says nothing about folders', async () => {
    const chosen = join(home, 'chosen');
    const run = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'k', '--state', chosen]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(await readdir(join(chosen, 'idempotency'))).toHaveLength(1);
    expect(await readdir(home)).toEqual(['chosen']);
  });

  it.each([
    ['no folder is named', env({ HOME: undefined })],
    ['the folder cannot be written', env({ PLUGBOARD_STATE: 'blocked/state' })],
  ])('refuses a key it cannot keep (%s): exit 2 naming --state, nothing sent', async (_case, environment) => {
    await writeFile(join(home, 'blocked'), 'a file, not a folder');
    const buffers = bufferIo(environment);
    const code = await runCli(
      [...ORDER, '--base-url', server.url, '--idempotency-key', 'k'],
      { ...buffers.io, cwd: home },
      { pack },
    );
    expect(code).toBe(2);
    expect(lastError(buffers.stderr())).toMatchObject({
      code: 'invalid_input',
      statusCode: 400,
      message: expect.stringContaining('--state DIR'),
    });
    expect(buffers.stdout()).toBe('');
    expect(server.requests).toEqual([]);
  });

  it('refuses an empty key', async () => {
    const run = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', '']);
    expect(run.code).toBe(2);
    expect(lastError(run.stderr).message).toContain('--idempotency-key must not be empty');
    expect(server.requests).toEqual([]);
  });

  it('keeps no checkpoint for a source without --state, a key and PLUGBOARD_STATE notwithstanding', async () => {
    const argv = [
      'run',
      'shop',
      'items.list',
      '--input',
      '{"limit":3}',
      '--base-url',
      server.url,
      '--idempotency-key',
      'k',
    ];
    expect((await cli(argv)).code).toBe(0);
    const again = await cli(argv);
    expect(lines(again.stdout)).toHaveLength(5);
    expect(again.stderr).toBe('');
    expect(await readdir(home)).toEqual([]);
  });
});

describe('plugboard idempotency', () => {
  /** A key whose run is left running since `startedAt`, as a process killed mid-request leaves it. */
  async function leftRunning(key: string, startedAt: string) {
    // The fingerprint and digest of exactly ORDER: from a first run under another key.
    expect((await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'template'])).code).toBe(0);
    const template = (await fileStore(state).idempotency.get('template'))!;
    const {
      state: _state,
      result: _result,
      finishedAt: _finished,
      ...first
    } = template as Extract<typeof template, { state: 'succeeded' }>;
    await fileStore(state).idempotency.claim(key, { ...first, state: 'running', startedAt });
    server.clear();
  }

  it('shows a running key as JSON, refuses to settle it while recent, and settled failed, the key runs again', async () => {
    const startedAt = new Date(Date.now() - 5 * 60_000).toISOString();
    await leftRunning('order-9', startedAt);
    const shown = await cli(['idempotency', 'show', 'order-9']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({
      key: 'order-9',
      state: 'running',
      connector: 'shop',
      action: 'orders.create',
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      fingerprint: expect.stringMatching(/^sha256:/),
      startedAt,
      decisions: [],
    });
    // The run meanwhile is refused, as before.
    const blocked = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-9']);
    expect(blocked.code).toBe(6);
    expect(lastError(blocked.stderr)).toMatchObject({
      code: 'conflict',
      statusCode: 409,
      message: expect.stringContaining('settle the key'),
    });
    expect(lastError(blocked.stderr).message).toMatch(
      /; see plugboard idempotency show order-9, and plugboard idempotency settle --help$/,
    );

    const settle = [
      'idempotency',
      'settle',
      'order-9',
      '--as',
      'failed',
      '--by',
      'ops@example.com',
      '--reason',
      'no order in the provider console',
    ];
    const early = await cli(settle);
    expect(early.code).toBe(6);
    expect(lastError(early.stderr)).toMatchObject({
      code: 'conflict',
      statusCode: 409,
      message: expect.stringContaining('5 min ago, less than 1 h'),
    });
    expect(lastError(early.stderr).message).toContain('(--force)');
    expect(lastError(early.stderr).message).toContain('--min-age');
    expect((await cli([...settle, '--min-age', '10m'])).code).toBe(6);

    const settled = await cli([...settle, '--min-age', '2m']);
    expect(settled.code).toBe(0);
    const report = JSON.parse(settled.stdout);
    expect(report).toEqual({
      key: 'order-9',
      state: 'released',
      decisions: [
        {
          as: 'failed',
          by: 'ops@example.com',
          reason: 'no order in the provider console',
          at: expect.any(String),
          before: expect.objectContaining({ state: 'running', startedAt }),
        },
      ],
    });
    expect(JSON.parse((await cli(['idempotency', 'show', 'order-9'])).stdout)).toEqual(report);

    const again = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-9']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ order_id: expect.stringMatching(/^ord_/) });
    expect(posts()).toHaveLength(1);
    const after = JSON.parse((await cli(['idempotency', 'show', 'order-9'])).stdout);
    expect(after).toMatchObject({ state: 'succeeded', result: JSON.parse(again.stdout), decisions: report.decisions });
  });

  it("settles a running key succeeded with the provider's result: a repeat replays it and sends nothing", async () => {
    await leftRunning('order-10', HOURS_AGO(2));
    const result = { order_id: 'ord_77', amount: '10.00' };
    const settled = await cli([
      'idempotency',
      'settle',
      'order-10',
      '--as',
      'succeeded',
      '--by',
      'ops',
      '--reason',
      'ord_77 in the console',
      '--result',
      JSON.stringify(result),
    ]);
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout)).toMatchObject({
      state: 'succeeded',
      result,
      decision: { as: 'succeeded', by: 'ops', reason: 'ord_77 in the console', before: { state: 'running' } },
      decisions: [{ as: 'succeeded' }],
    });
    const repeat = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-10']);
    expect(repeat.code).toBe(0);
    expect(JSON.parse(repeat.stdout)).toEqual(result);
    expect(repeat.stderr).toContain('replayed');
    expect(posts()).toEqual([]);
    // Settled once: refused now.
    const twice = await cli([
      'idempotency',
      'settle',
      'order-10',
      '--as',
      'failed',
      '--by',
      'ops',
      '--reason',
      'changed my mind',
      '--force',
    ]);
    expect(twice.code).toBe(6);
    expect(lastError(twice.stderr)).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('settled by ops'),
    });
  });

  it("shows an uncertain key with the error code and the provider's request id, and settles it without waiting", async () => {
    server.otherwise((request) =>
      request.method === 'POST'
        ? reply(503, { error: 'unavailable', message: 'try later' })
        : shopAnswer(request, { token: TOKEN }),
    );
    const failed = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-11']);
    expect(failed.code).toBe(1);
    const refused = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-11', '--state', state]);
    expect(refused.code).toBe(6);
    expect(lastError(refused.stderr).message).toContain(`see plugboard idempotency show order-11 --state ${state}`);
    const shown = JSON.parse((await cli(['idempotency', 'show', 'order-11'])).stdout);
    expect(shown).toMatchObject({
      state: 'uncertain',
      connector: 'shop',
      action: 'orders.create',
      finishedAt: expect.any(String),
      error: { code: expect.any(String), requestId: expect.stringMatching(/^req_/) },
    });
    expect(shown.error.requestId).toBe(lastError(failed.stderr).requestId);
    const settled = await cli([
      'idempotency',
      'settle',
      'order-11',
      '--as',
      'failed',
      '--by',
      'ops',
      '--reason',
      `no ${shown.error.requestId} in the console`,
    ]);
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout).decisions[0].before).toMatchObject({ state: 'uncertain', error: shown.error });
  });

  it('a run cancelled in flight is uncertain, not running', async () => {
    server.next(delay(10_000));
    const controller = new AbortController();
    const buffers = bufferIo(env({ PLUGBOARD_STATE: state }));
    const running = runCli([...ORDER, '--base-url', server.url, '--idempotency-key', 'order-12'], buffers.io, {
      pack,
      signal: controller.signal,
    });
    while (posts().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await running).toBe(1);
    expect(JSON.parse((await cli(['idempotency', 'show', 'order-12'])).stdout)).toMatchObject({
      state: 'uncertain',
      error: { code: 'cancelled' },
    });
  });

  it("checks a given result against the action's data type when the connector is at hand", async () => {
    await leftRunning('order-13', HOURS_AGO(2));
    const wrong = await cli([
      'idempotency',
      'settle',
      'order-13',
      '--as',
      'succeeded',
      '--by',
      'ops',
      '--reason',
      'r',
      '--result',
      '{"order":"x"}',
    ]);
    expect(wrong.code).toBe(2);
    expect(lastError(wrong.stderr).message).toContain(
      '--result is not a result of shop orders.create: result.order_id',
    );
    expect(JSON.parse((await cli(['idempotency', 'show', 'order-13'])).stdout).state).toBe('running');
  });

  it.each([
    [['show'], "missing required argument 'key'"],
    [['settle', 'k', '--by', 'ops', '--reason', 'r'], "required option '--as <outcome>' not specified"],
    [['settle', 'k', '--as', 'maybe', '--by', 'ops', '--reason', 'r'], 'Allowed choices are succeeded, failed'],
    [['settle', 'k', '--as', 'failed', '--reason', 'r'], "required option '--by <name>' not specified"],
    [['settle', 'k', '--as', 'failed', '--by', 'ops', '--reason', ' '], '--reason TEXT must say why'],
    [
      ['settle', 'k', '--as', 'failed', '--by', 'ops', '--reason', 'r', '--result', '{}'],
      '--result goes with --as succeeded',
    ],
    [['settle', 'k', '--as', 'succeeded', '--by', 'ops', '--reason', 'r', '--result', '{nope'], '--result'],
    [
      ['settle', 'k', '--as', 'failed', '--by', 'ops', '--reason', 'r', '--min-age', 'soon'],
      '--min-age takes a duration',
    ],
    [
      ['settle', 'k', '--as', 'failed', '--by', 'ops', '--reason', 'r', '--min-age', '1h', '--force'],
      '--force and --min-age exclude each other',
    ],
    [['settle', 'k', '--as', 'failed', '--by', 'ops', '--reason', 'r', '--by-force'], "unknown option '--by-force'"],
    [['forget', 'k'], "unknown command 'forget'"],
  ])('exits 2 on %j', async (argv, mention) => {
    const run = await cli(['idempotency', ...argv]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(lastError(run.stderr)).toMatchObject({ code: 'invalid_input', message: expect.stringContaining(mention) });
  });

  it('exits 6 (a person must look) for a key nothing is kept under, naming the folder looked in', async () => {
    for (const verb of [
      ['show', 'nope'],
      ['settle', 'nope', '--as', 'failed', '--by', 'ops', '--reason', 'r'],
    ]) {
      const run = await cli(['idempotency', ...verb]);
      expect(run.code).toBe(6);
      expect(lastError(run.stderr)).toMatchObject({
        code: 'idempotency_key_unknown',
        statusCode: 404,
        message: expect.stringContaining(state),
      });
    }
  });

  it('quotes a long key as an excerpt, in the folder line and in errors; the key itself is kept whole', async () => {
    const key = `k${'x'.repeat(10_000)}`;
    const run = await cli([...ORDER, '--base-url', server.url, '--idempotency-key', key]);
    expect(run.code).toBe(0);
    expect(run.stderr.length).toBeLessThan(600);
    expect(run.stderr).toContain('… (10001 characters) is kept in');
    expect(JSON.parse((await cli(['idempotency', 'show', key])).stdout)).toMatchObject({ key, state: 'succeeded' });
    const unknown = await cli(['idempotency', 'show', `${key}y`]);
    expect(unknown.code).toBe(6);
    expect(lastError(unknown.stderr).message.length).toBeLessThan(600);
    expect(lastError(unknown.stderr).message).toContain('… (10002 characters)');
  });

  it('prints its usage with --help, and with nothing exits 2', async () => {
    const help = await cli(['idempotency', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: plugboard idempotency');
    expect(help.stdout).toContain('settle [options] <key>');
    expect((await cli(['idempotency'])).code).toBe(2);
    const top = bufferIo();
    await runCli(['--help'], top.io, { pack });
    expect(top.stdout()).toContain('idempotency');
    expect(top.stdout()).toContain('Exit codes:');
  });
});
