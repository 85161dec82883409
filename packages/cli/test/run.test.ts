import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { items, shop, startShopProvider } from '@plugboard/example-connector';
import type { FaultServer } from '@plugboard/testing';
import { runCli } from '../src/index.js';
import { bufferIo, seen, TOKEN } from './support.js';

const ITEMS = items(5);
let server: FaultServer;
beforeEach(async () => {
  server = await startShopProvider({ items: ITEMS, token: TOKEN });
});
afterEach(async () => {
  await server.close();
});

const pack = new Map([['shop', shop]]);
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('plugboard run', () => {
  it("prints a source's records as JSON lines, every page", async () => {
    const { io, stdout, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const code = await runCli(['run', 'shop', 'items.list', '--input', '{"limit":2}', '--base-url', server.url], io, {
      pack,
    });
    expect(code).toBe(0);
    expect(lines(stdout()).map((record) => record.id)).toEqual(ITEMS.map((item) => item.id));
    expect(stderr()).toBe('');
  });

  it("prints a destination's result as one JSON line", async () => {
    const { io, stdout } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const code = await runCli(
      ['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":2}', '--base-url', server.url],
      io,
      { pack },
    );
    expect(code).toBe(0);
    expect(stdout()).toBe('{"order_id":"ord_1","amount":"20.00"}\n');
  });

  it('prints the platform Error as JSON on stderr and exits 4 when the provider refuses', async () => {
    const { io, stdout, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: 'wrong-token-123' });
    const code = await runCli(['run', 'shop', 'items.list', '--base-url', server.url], io, { pack });
    expect(code).toBe(4);
    expect(stdout()).toBe('');
    expect(lines(stderr())).toEqual([
      {
        error: 'request_failed',
        message: 'GET /items: bad token',
        statusCode: 401,
        requestId: expect.stringMatching(/^req_[0-9a-f]+$/),
        path: '/cli/run/shop/items.list',
        code: 'authentication_failed',
        hint: 'the provider refused the credential: check PLUGBOARD_CREDENTIAL, or sign in again with plugboard auth login',
      },
    ]);
    expect(stderr()).not.toContain('wrong-token-123');
  });

  it.each([
    [['run', 'shop', 'orders.create', '--input', '{"sku":"","quantity":1}'], 'sku'],
    [['run', 'shop', 'orders.create', '--input', '{not json'], '--input'],
    [
      ['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1}', '--environment', 'staging'],
      'environment',
    ],
    [['run', 'shop', 'orders.drop', '--input', '{}'], "no action 'orders.drop'"],
    [['run', 'nope', 'items.list'], "no connector 'nope'; available: shop"],
    [['run', 'shop', 'items.list', '--connection', '{"apiKey":"x"}'], 'settings.apiKey'],
    [['run', 'shop', 'items.list', '--password', 'x'], "unknown option '--password'"],
    [['run', 'shop', 'items.list', '--connection-id', '../work'], '--connection-id ../work: a connection name is'],
    [
      ['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1,"x":{"__proto__":{"polluted":true}}}'],
      "--input: x.__proto__: the key '__proto__' is not taken",
    ],
  ])('exits 2 on bad input %j, before any request', async (argv, mention) => {
    const { io, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const code = await runCli([...argv, '--base-url', server.url], io, { pack });
    expect(code).toBe(2);
    expect(stderr()).toContain(mention);
    const error = JSON.parse(stderr().trim().split('\n').at(-1)!) as { error: string; statusCode: number };
    expect(error.error).toBe('request_failed');
    expect([400, 404]).toContain(error.statusCode);
    expect(server.requests).toEqual([]);
  });

  it('takes the credential only from PLUGBOARD_CREDENTIAL', async () => {
    const { io, stderr } = bufferIo({});
    const code = await runCli(['run', 'shop', 'items.list', '--base-url', server.url], io, { pack });
    expect(code).toBe(2);
    expect(stderr()).toContain('PLUGBOARD_CREDENTIAL');
    expect(server.requests).toEqual([]);
  });

  it("with --state, resumes a source where the last run's printed pages end", async () => {
    const state = await mkdtemp(join(tmpdir(), 'plugboard-cli-'));
    const first = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(
      await runCli(
        ['run', 'shop', 'items.list', '--input', '{"limit":3}', '--base-url', server.url, '--state', state],
        first.io,
        { pack },
      ),
    ).toBe(0);
    expect(lines(first.stdout())).toHaveLength(5);
    const second = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(
      await runCli(
        ['run', 'shop', 'items.list', '--input', '{"limit":3}', '--base-url', server.url, '--state', state],
        second.io,
        { pack },
      ),
    ).toBe(0);
    expect(second.stdout()).toBe('');
    expect(seen(server).at(-1)).toBe(`GET /items?limit=3&updated_after=${encodeURIComponent(ITEMS[4]!.updated_at)}`);
    expect(await readdir(join(state, 'checkpoints'))).toHaveLength(1);
  });

  it('with --state and --idempotency-key, a repeated write returns the first result without a second call', async () => {
    const state = await mkdtemp(join(tmpdir(), 'plugboard-cli-'));
    const argv = [
      'run',
      'shop',
      'orders.create',
      '--input',
      '{"sku":"A1","quantity":1}',
      '--base-url',
      server.url,
      '--state',
      state,
      '--idempotency-key',
      'order-1',
    ];
    const first = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(argv, first.io, { pack })).toBe(0);
    const second = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(argv, second.io, { pack })).toBe(0);
    expect(second.stdout()).toBe(first.stdout());
    expect(second.stderr()).toContain('replayed: the first result under idempotency key order-1; nothing was sent');
    expect(seen(server).filter((line) => line.startsWith('POST'))).toHaveLength(1);
  });

  it('shares rate budgets through the Redis PLUGBOARD_REDIS_URL names', async () => {
    // Nothing listens there: the run fails on the shared budget store, which shows it was asked.
    const { io, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN, PLUGBOARD_REDIS_URL: 'redis://127.0.0.1:9' });
    expect(
      await runCli(
        ['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1}', '--base-url', server.url],
        io,
        { pack },
      ),
    ).toBe(1);
    expect(JSON.parse(stderr().trim().split('\n').at(-1)!)).toMatchObject({ code: 'budget_store_unavailable' });
    expect(server.requests).toEqual([]);
  });

  it('shows progress on stderr only when it is a terminal', async () => {
    const tty = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN }, true);
    await runCli(['run', 'shop', 'items.list', '--base-url', server.url], tty.io, { pack });
    expect(tty.stderr()).toContain('items.list: 2 pages 5');
    expect(lines(tty.stdout())).toHaveLength(5);
    // The action's own progress too.
    await runCli(['run', 'shop', 'jobs.run', '--input', '{"steps":2}', '--base-url', server.url], tty.io, { pack });
    expect(tty.stderr()).toContain('Working');
    const pipe = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN }, false);
    await runCli(['run', 'shop', 'items.list', '--base-url', server.url], pipe.io, { pack });
    await runCli(['run', 'shop', 'jobs.run', '--base-url', server.url], pipe.io, { pack });
    expect(pipe.stderr()).toBe('');
  });

  it('prints usage and exits 2 without a command', async () => {
    const { io, stdout } = bufferIo();
    expect(await runCli([], io, { pack })).toBe(2);
    expect(stdout()).toContain('Usage: plugboard [options] [command]');
    expect(stdout()).toContain('run [options] [connector] [action]');
  });
});
