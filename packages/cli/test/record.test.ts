import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shop, startShopProvider } from '@plugboard/example-connector';
import type { FaultServer } from '@plugboard/testing';
import { runCli } from '../src/index.js';
import { bufferIo, TOKEN } from './support.js';

let server: FaultServer;
let fixtures: string;
beforeEach(async () => {
  server = await startShopProvider({ token: TOKEN });
  fixtures = await mkdtemp(join(tmpdir(), 'plugboard-record-'));
});
afterEach(async () => {
  await server.close();
});

const pack = new Map([['shop', shop]]);

describe('plugboard record', () => {
  it('runs the action and writes a redacted fixture for the scenario', async () => {
    const { io, stdout, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const code = await runCli(
      [
        'record',
        'shop',
        'items.list',
        '--input',
        '{"limit":2}',
        '--scenario',
        'items-all',
        '--base-url',
        server.url,
        '--fixtures',
        fixtures,
      ],
      io,
      { pack },
    );
    expect(code).toBe(0);
    expect(stdout().trim().split('\n')).toHaveLength(5);
    expect(stderr()).toContain(
      `recorded scenario 'items-all' (3 calls, 5 records in 3 pages) to ${join(fixtures, 'items-all.json')}`,
    );
    const text = await readFile(join(fixtures, 'items-all.json'), 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(Buffer.from(TOKEN).toString('base64').slice(0, 12));
    const fixture = JSON.parse(text) as { scenario: { action: string; input: unknown }; calls: unknown[] };
    expect(fixture.scenario).toMatchObject({ action: 'items.list', input: { limit: 2 } });
    expect(fixture.calls).toHaveLength(3);
  });

  it('at a terminal prints a summary, not the records; --print prints them there too', async () => {
    const argv = [
      'record',
      'shop',
      'items.list',
      '--input',
      '{"limit":2}',
      '--base-url',
      server.url,
      '--fixtures',
      fixtures,
    ];
    const terminal = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN }, true);
    terminal.io.stdout.isTTY = true;
    expect(await runCli([...argv, '--scenario', 'items-quiet'], terminal.io, { pack })).toBe(0);
    expect(terminal.stdout()).toBe('');
    expect(terminal.stderr()).toContain(
      `recorded scenario 'items-quiet' (3 calls, 5 records in 3 pages) to ${join(fixtures, 'items-quiet.json')}; --print prints the records`,
    );

    const printed = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN }, true);
    printed.io.stdout.isTTY = true;
    expect(await runCli([...argv, '--scenario', 'items-printed', '--print'], printed.io, { pack })).toBe(0);
    expect(
      printed
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toHaveLength(5);
    expect(printed.stderr()).toContain(
      `recorded scenario 'items-printed' (3 calls, 5 records in 3 pages) to ${join(fixtures, 'items-printed.json')}\n`,
    );
  });

  it('records a failure only as an expected error scenario; an unexpected one writes nothing and exits 4 (the provider refused)', async () => {
    const unexpected = bufferIo({ PLUGBOARD_CREDENTIAL: 'a-wrong-token-77' });
    const argv = [
      'record',
      'shop',
      'items.list',
      '--scenario',
      'unauthorized',
      '--base-url',
      server.url,
      '--fixtures',
      fixtures,
    ];
    expect(await runCli(argv, unexpected.io, { pack })).toBe(4);
    expect(unexpected.stderr()).toContain('nothing was written');
    expect(JSON.parse(unexpected.stderr().trim().split('\n').at(-1)!)).toMatchObject({
      code: 'authentication_failed',
      statusCode: 401,
    });
    expect(await readdir(fixtures)).toEqual([]);

    const expected = bufferIo({ PLUGBOARD_CREDENTIAL: 'a-wrong-token-77' });
    expect(await runCli([...argv, '--expect-error', 'authentication_failed'], expected.io, { pack })).toBe(0);
    expect(expected.stderr()).toContain('error authentication_failed');
    const text = await readFile(join(fixtures, 'unauthorized.json'), 'utf8');
    expect(text).not.toContain('a-wrong-token-77');
    expect(JSON.parse(text)).toMatchObject({ scenario: { expect: { error: 'authentication_failed' } } });
  });

  it('with --state, records an incremental source from where the last run or recording ended (the second scenario of a pair)', async () => {
    const state = await mkdtemp(join(tmpdir(), 'plugboard-record-state-'));
    const record = async (scenario: string) => {
      const { io, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
      const argv = [
        'record',
        'shop',
        'items.list',
        '--input',
        '{"limit":2}',
        '--scenario',
        scenario,
        '--base-url',
        server.url,
        '--fixtures',
        fixtures,
        '--state',
        state,
      ];
      expect(await runCli(argv, io, { pack })).toBe(0);
      return {
        stderr: stderr(),
        fixture: JSON.parse(await readFile(join(fixtures, `${scenario}.json`), 'utf8')) as {
          scenario: { checkpoint?: unknown };
        },
      };
    };
    const first = await record('items-all');
    expect(first.stderr).toContain('5 records');
    expect(first.fixture.scenario.checkpoint).toBeUndefined();
    const second = await record('items-since');
    expect(second.fixture.scenario.checkpoint).toEqual({ updated_after: expect.any(String) });
    expect(second.stderr).toContain('0 records');
  });

  it('records production against a local provider only where PLUGBOARD_ALLOW_NETWORK lets it through', async () => {
    const argv = [
      'record',
      'shop',
      'items.list',
      '--input',
      '{"limit":5}',
      '--environment',
      'production',
      '--scenario',
      'items-production',
      '--base-url',
      server.url,
      '--fixtures',
      fixtures,
    ];
    const refused = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(argv, refused.io, { pack })).toBe(2);
    expect(JSON.parse(refused.stderr().trim().split('\n').at(-1)!)).toMatchObject({ code: 'address_refused' });
    expect(server.requests).toEqual([]);
    const allowed = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN, PLUGBOARD_ALLOW_NETWORK: '127.0.0.0/8' });
    expect(await runCli(argv, allowed.io, { pack })).toBe(0);
    expect(await readdir(fixtures)).toEqual(['items-production.json']);
  });

  it('exits 2 on bad input or a missing scenario name, writing nothing and sending nothing', async () => {
    for (const argv of [
      ['record', 'shop', 'orders.create', '--input', '{"sku":"","quantity":1}', '--scenario', 'x'],
      ['record', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1}'],
      ['record', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1}', '--scenario', '../escape'],
    ]) {
      const { io } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
      expect(await runCli([...argv, '--base-url', server.url, '--fixtures', fixtures], io, { pack })).toBe(2);
    }
    expect(await readdir(fixtures)).toEqual([]);
    expect(server.requests).toEqual([]);
  });
});

describe('plugboard replay', () => {
  it('replays a recorded scenario with the provider gone, and fails when the recording does not hold what the run asks', async () => {
    const recorded = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const argv = [
      'record',
      'shop',
      'items.list',
      '--input',
      '{"limit":2}',
      '--scenario',
      'items-all',
      '--base-url',
      server.url,
      '--fixtures',
      fixtures,
    ];
    expect(await runCli(argv, recorded.io, { pack })).toBe(0);
    await server.close();

    const replayed = bufferIo();
    expect(
      await runCli(['replay', 'shop', '--scenario', 'items-all', '--fixtures', fixtures], replayed.io, { pack }),
      replayed.stderr(),
    ).toBe(0);
    expect(replayed.stdout()).toBe(recorded.stdout());
    expect(replayed.stderr()).toContain(
      `replayed scenario 'items-all' from ${join(fixtures, 'items-all.json')} with the network closed (3 calls, 5 records in 3 pages)`,
    );

    // A recording short of its last page: the run asks for a request nobody recorded.
    const file = join(fixtures, 'items-all.json');
    const fixture = JSON.parse(await readFile(file, 'utf8')) as { calls: unknown[] };
    await writeFile(file, JSON.stringify({ ...fixture, calls: fixture.calls.slice(0, 2) }));
    const short = bufferIo();
    expect(
      await runCli(['replay', 'shop', '--scenario', 'items-all', '--fixtures', fixtures], short.io, { pack }),
    ).toBe(1);
    expect(short.stderr()).toMatch(/GET \/items\?limit=2&cursor=/);
  });
});
