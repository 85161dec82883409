import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signDelivery } from '@plugboard/sdk/host';
import { migrate } from '@plugboard/worker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRedis } from '../../sdk/test/support/redis.js';
import { startPostgres } from '../../worker/test/support/postgres.js';
import { type CliIo, runCli } from '../src/index.js';
import { bufferIo } from './support.js';

/**
 * `plugboard triggers serve` on --port 0 as a script meets it: it prints one JSON line per
 * trigger with the URL to post to, takes a signed delivery there, and `plugboard triggers
 * deliveries` lists the receipt; a configuration holding a secret is refused before it listens.
 */

const SECRET = 'whsec_sandbox_cli_5b2e8d1f0a7c3e9b';
const TRIGGER = {
  triggerId: 'trg_cli',
  url: '/api/connect/triggers/pub_cli',
  environment: 'sandbox',
  status: 'active',
  maxBodyBytes: 65_536,
  maxDeliveriesPerMinute: 60,
  timestampToleranceSeconds: 300,
  inputRetentionDays: 7,
  previousSecretValidUntil: null,
  secretEnv: 'CLI_TRIGGER_SECRET',
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-cli-triggers-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An io whose stdout resolves `firstLine` with the first whole line the command prints. */
function lineIo(env: Record<string, string>) {
  const buffered = bufferIo(env);
  let resolveLine: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (resolveLine = resolve));
  let out = '';
  const io: CliIo = {
    ...buffered.io,
    stdout: {
      write: (text: string) => {
        out += text;
        if (out.includes('\n')) resolveLine(out.slice(0, out.indexOf('\n')));
        return true;
      },
    },
  };
  return { io, firstLine, stdout: () => out, stderr: buffered.stderr };
}

/** `triggers serve` of TRIGGER (`fields` replaced) on --port 0 with a state folder under the test's, `extra` flags after; stops on `controller.abort()`. */
async function serveTrigger(extra: string[] = [], fields: Record<string, unknown> = {}) {
  const config = join(dir, 'triggers.json');
  const state = join(dir, 'state');
  await writeFile(config, JSON.stringify({ triggers: [{ ...TRIGGER, ...fields }] }));
  const serving = lineIo({ CLI_TRIGGER_SECRET: SECRET });
  const controller = new AbortController();
  const argv = ['triggers', 'serve', '--config', config, '--port', '0', '--state', state];
  const exit = runCli([...argv, ...extra], serving.io, { signal: controller.signal });
  return { serving, controller, exit, argv, state };
}

describe('plugboard triggers', () => {
  it('serve prints each trigger with its full URL, takes a signed delivery there; deliveries lists its receipt', async () => {
    const { serving, controller, exit, state } = await serveTrigger();
    const printed = JSON.parse(await serving.firstLine) as { triggerId: string; url: string };
    expect(printed).toEqual({
      triggerId: 'trg_cli',
      status: 'active',
      environment: 'sandbox',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/connect\/triggers\/pub_cli$/),
    });
    const body = JSON.stringify({ type: 'ping', records: [{ id: 'p1' }] });
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(printed.url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-platform-timestamp': String(timestamp),
        'x-platform-event-id': 'evt_cli_1',
        'x-platform-signature': signDelivery({ secret: SECRET, timestamp, eventId: 'evt_cli_1', body }),
      },
    });
    const answer = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(200);
    expect(answer).toMatchObject({ accepted: true, duplicate: false, executionId: null });
    controller.abort();
    expect(await exit).toBe(0);
    const listed = bufferIo({});
    expect(await runCli(['triggers', 'deliveries', '--state', state, '--trigger', 'trg_cli'], listed.io)).toBe(0);
    const receipts = listed
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(receipts).toEqual([
      expect.objectContaining({
        deliveryId: answer.deliveryId,
        triggerId: 'trg_cli',
        status: 'accepted',
        httpStatus: 200,
        eventId: 'evt_cli_1',
        eventType: 'ping',
        recordCount: 1,
      }),
    ]);
    expect(listed.stdout()).not.toContain(SECRET);
  });

  it("serve prints a line per poll after the triggers; polls lists each poll trigger's kept state", async () => {
    const config = join(dir, 'triggers.json');
    const state = join(dir, 'state');
    // A paused poll: listed and kept, never polled, so no connector is needed for it.
    const poll = {
      pollTriggerId: 'poll_cli',
      status: 'paused',
      intervalMinutes: 15,
      environment: 'sandbox',
      run: { connector: 'feed', action: 'items.list', connection: 'feed-main' },
    };
    await writeFile(config, JSON.stringify({ triggers: [TRIGGER], polls: [poll] }));
    const serving = lineIo({ CLI_TRIGGER_SECRET: SECRET });
    const controller = new AbortController();
    const exit = runCli(['triggers', 'serve', '--config', config, '--state', state], serving.io, {
      signal: controller.signal,
    });
    await serving.firstLine;
    controller.abort();
    expect(await exit).toBe(0);
    const [trigger, printed] = serving
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(trigger).toMatchObject({ triggerId: 'trg_cli' });
    const paused = {
      pollTriggerId: 'poll_cli',
      kind: 'poll',
      status: 'paused',
      state: 'paused',
      stateMessage: 'not polled: its status is not active',
      intervalMinutes: 15,
      nextCheckAt: null,
      operationKey: 'feed/items.list',
    };
    expect(printed).toMatchObject(paused);
    const listed = bufferIo({});
    expect(await runCli(['triggers', 'polls', '--state', state], listed.io)).toBe(0);
    expect(JSON.parse(listed.stdout())).toMatchObject(paused);
  });

  it('serve --metrics-port serves the deliveries counted on a port of its own; a bad or busy one exits 2 naming it', async () => {
    const { serving, controller, exit, argv } = await serveTrigger(['--metrics-port', '0']);
    const printed = JSON.parse(await serving.firstLine) as { url: string };
    const metrics = /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(serving.stderr())?.[1];
    expect(metrics).toBeDefined();
    const body = JSON.stringify({ type: 'ping' });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signDelivery({ secret: SECRET, timestamp, eventId: 'evt_cli_m', body });
    const headers = { 'x-platform-timestamp': String(timestamp), 'x-platform-event-id': 'evt_cli_m' };
    await fetch(printed.url, { method: 'POST', body, headers: { ...headers, 'x-platform-signature': signature } });
    const scraped = await (await fetch(metrics!)).text();
    expect(scraped).toContain('plugboard_trigger_deliveries_total{trigger="trg_cli",outcome="accepted"} 1');
    controller.abort();
    expect(await exit).toBe(0);
    const bad = bufferIo({ CLI_TRIGGER_SECRET: SECRET });
    expect(await runCli([...argv, '--metrics-port', '70000'], bad.io)).toBe(2);
    expect(bad.stderr()).toContain('--metrics-port must be a whole number from 0 to 65535');
    // A port this test holds: the metrics cannot have it.
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const busy = bufferIo({ CLI_TRIGGER_SECRET: SECRET });
    const port = String((held.address() as AddressInfo).port);
    try {
      expect(await runCli([...argv, '--metrics-port', port], busy.io)).toBe(2);
    } finally {
      held.close();
    }
    expect(busy.stderr()).toContain(`--metrics-port ${port}: the port is in use`);
  });

  it("serve warns when refusals past the trigger's rate go without a receipt", async () => {
    const { serving, controller, exit } = await serveTrigger([], { maxDeliveriesPerMinute: 1 });
    const printed = JSON.parse(await serving.firstLine) as { url: string };
    const codes: unknown[] = [];
    for (let sent = 0; sent < 3; sent += 1) {
      const response = await fetch(printed.url, { method: 'POST', body: '{}' });
      codes.push(((await response.json()) as Record<string, unknown>).code);
    }
    expect(codes).toEqual(['malformed', 'rate_limited', 'rate_limited']);
    controller.abort();
    expect(await exit).toBe(0);
    const warned = serving
      .stderr()
      .split('\n')
      .filter((line) => line.includes('leave no receipt'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warned).toEqual([expect.objectContaining({ level: 'warn', triggerId: 'trg_cli' })]);
  });

  it('serve --receipt-retention-days takes whole days from 1 to 3650, and exits 2 naming it otherwise', async () => {
    const { serving, controller, exit, argv } = await serveTrigger(['--receipt-retention-days', '30']);
    expect(JSON.parse(await serving.firstLine)).toMatchObject({ triggerId: 'trg_cli' });
    controller.abort();
    expect(await exit).toBe(0);
    for (const days of ['0', '3651', '1.5', 'a week']) {
      const bad = bufferIo({ CLI_TRIGGER_SECRET: SECRET });
      expect(await runCli([...argv, '--receipt-retention-days', days], bad.io)).toBe(2);
      expect(bad.stderr()).toContain('--receipt-retention-days must be a whole number from 1 to 3650');
    }
  });

  it('serve refuses a configuration holding a secret, or a secret variable not set, with exit 2 before listening', async () => {
    const config = join(dir, 'triggers.json');
    await writeFile(config, JSON.stringify({ triggers: [{ ...TRIGGER, secret: SECRET }] }));
    const leaky = bufferIo({ CLI_TRIGGER_SECRET: SECRET });
    const argv = ['triggers', 'serve', '--config', config, '--state', join(dir, 'state')];
    expect(await runCli(argv, leaky.io)).toBe(2);
    expect(leaky.stderr()).toContain('triggers[0].secret');
    expect(leaky.stderr()).not.toContain(SECRET);
    expect(leaky.stdout()).toBe('');
    await writeFile(config, JSON.stringify({ triggers: [TRIGGER] }));
    const unset = bufferIo({});
    expect(await runCli(argv, unset.io)).toBe(2);
    expect(unset.stderr()).toContain('the environment variable CLI_TRIGGER_SECRET is not set');
    expect(unset.stderr()).toContain('"hint":"plugboard triggers serve --help says what the file holds"');
  });

  it('serve takes --redis and --postgres together or not at all: either alone exits 2 naming the other', async () => {
    const config = join(dir, 'triggers.json');
    await writeFile(config, JSON.stringify({ triggers: [TRIGGER] }));
    const base = ['triggers', 'serve', '--config', config, '--state', join(dir, 'state')];
    const redisOnly = bufferIo({ CLI_TRIGGER_SECRET: SECRET });
    expect(await runCli([...base, '--redis', 'redis://127.0.0.1:1'], redisOnly.io)).toBe(2);
    expect(redisOnly.stderr()).toContain('--redis needs --postgres URL too');
    const postgresOnly = bufferIo({ CLI_TRIGGER_SECRET: SECRET });
    expect(await runCli([...base, '--postgres', 'postgres://plugboard@127.0.0.1:1/x'], postgresOnly.io)).toBe(2);
    expect(postgresOnly.stderr()).toContain('--postgres needs --redis URL too');
    expect(postgresOnly.stdout()).toBe('');
    // Each URL of the other's kind: named, with no hint about an action's inputs.
    const swapped = bufferIo({ CLI_TRIGGER_SECRET: SECRET });
    const urls = ['--redis', 'postgres://plugboard@127.0.0.1:1/x', '--postgres', 'redis://127.0.0.1:1'];
    expect(await runCli([...base, ...urls], swapped.io)).toBe(2);
    expect(swapped.stderr()).toContain('queue.redis: must be a redis:// or rediss:// URL');
    expect(swapped.stderr()).toContain('queue.postgres: must be');
    expect(swapped.stderr()).not.toContain('describe');
  });

  it('serve --redis --postgres keeps the receipts in PostgreSQL; deliveries --postgres lists them', async (context) => {
    const redis = await startRedis();
    if (!redis.server) {
      if (process.env.CI) throw new Error(redis.reason);
      return context.skip();
    }
    const postgres = await startPostgres();
    try {
      const url = await postgres.database();
      await migrate(url);
      const serving = lineIo({ CLI_TRIGGER_SECRET: SECRET });
      const controller = new AbortController();
      const argv = ['triggers', 'serve', '--config', join(dir, 'triggers.json'), '--redis', redis.server.url];
      await writeFile(join(dir, 'triggers.json'), JSON.stringify({ triggers: [TRIGGER] }));
      const exit = runCli([...argv, '--postgres', url], serving.io, { signal: controller.signal });
      const printed = JSON.parse(await serving.firstLine) as { url: string };
      const body = JSON.stringify({ type: 'ping', records: [{ id: 'p1' }] });
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'x-platform-timestamp': String(timestamp),
        'x-platform-event-id': 'evt_cli_q',
        'x-platform-signature': signDelivery({ secret: SECRET, timestamp, eventId: 'evt_cli_q', body }),
      };
      const answer = (await (await fetch(printed.url, { method: 'POST', body, headers })).json()) as Record<
        string,
        unknown
      >;
      controller.abort();
      expect(await exit).toBe(0);
      const listed = bufferIo({});
      expect(await runCli(['triggers', 'deliveries', '--postgres', url, '--trigger', 'trg_cli'], listed.io)).toBe(0);
      expect(JSON.parse(listed.stdout())).toMatchObject({
        deliveryId: answer.deliveryId,
        status: 'accepted',
        eventId: 'evt_cli_q',
      });
    } finally {
      await postgres.stop();
      await redis.server.stop();
    }
  });
});
