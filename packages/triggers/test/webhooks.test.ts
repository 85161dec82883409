import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, type LogEntry, type Transport } from '@plugboard/sdk';
import { createExecutor, type ManualClock } from '@plugboard/sdk/host';
import { fileStore } from '@plugboard/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReceiver,
  type ExecutorHost,
  executorRunStarter,
  type Receiver,
  type RunEnd,
  TriggerConfigError,
  WEBHOOKS_FOLDER,
} from '../src/index.js';
import { type Front, startFront } from './front.js';
import { everyFile, filesUnder, receipts, stateFolder, testClock, trigger, useCleanup } from './support.js';
import { hooks } from './webhook/connector.js';
import { PROVIDER_TOKEN, type Provider, startProvider } from './webhook/provider.js';

/**
 * A connector's declared provider webhook, kept by the receiver over real HTTP against the
 * provider simulator: subscribed once on listen (not again after a restart), renewed before it
 * expires as the test's clock moves, unsubscribed once its trigger leaves the configuration; its
 * signed events become runs with the connector's records; forged and replayed ones are refused.
 */

useCleanup();

const LIFE_MS = 10 * 60_000;
const transports: Transport[] = [];
const providers: Provider[] = [];
const receivers: Receiver[] = [];
const fronts: Front[] = [];
afterEach(async () => {
  for (const front of fronts.splice(0)) await front.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
  for (const transport of transports.splice(0)) await transport.close();
  for (const provider of providers.splice(0)) await provider.close();
});

async function provider(clock: ManualClock): Promise<Provider> {
  const started = await startProvider(clock, LIFE_MS);
  providers.push(started);
  return started;
}

/** A front of the test's own (as a balancer), before whichever receiver is current. */
async function front(): Promise<Front> {
  const started = await startFront();
  fronts.push(started);
  return started;
}

/**
 * The trigger whose deliveries the hooks connector's webhook sends, runs importing its records;
 * `fields` replace or add (a full `url` behind a front, say).
 */
const hooked = (url: string, fields: Record<string, unknown> = {}) =>
  trigger({
    secretEnv: undefined,
    webhook: { connector: 'hooks', trigger: 'orders.created', connection: { id: 'hooks-main', baseUrl: url } },
    run: { connector: 'hooks', action: 'orders.import', connection: { id: 'hooks-main', baseUrl: url } },
    ...fields,
  });
/** A rule 13 trigger, for a configuration without the webhook. */
const plain = trigger({ triggerId: 'trg_plain', url: '/api/connect/triggers/pub_plain' });

interface Running {
  receiver: Receiver;
  logs: LogEntry[];
  runs: Promise<RunEnd>[];
  port: number;
  /** The host the webhook calls ran with. */
  host: ExecutorHost;
}

/** A receiver of the configuration on a free port, with the hooks connector as its host. */
async function serve(stateDir: string, clock: ManualClock, triggers: unknown[]): Promise<Running> {
  const transport = createTransport();
  transports.push(transport);
  // The receiver's and the calls' log entries alike: what an operator reads.
  const logs: LogEntry[] = [];
  const host = {
    connectors: [hooks],
    resolveCredential: () => PROVIDER_TOKEN,
    stores: fileStore(join(stateDir, 'runs')),
    transport,
    clock,
    // One try per call: the receiver's own backoff is what is under test.
    retry: { retries: 0 },
    log: (entry: LogEntry) => logs.push(entry),
  };
  const runs: Promise<RunEnd>[] = [];
  const start = executorRunStarter(host);
  const receiver = createReceiver({
    config: { triggers },
    stateDir,
    env: { TRIGGER_SECRET: 'whsec_sandbox_rcv_4d1f9a0c7b3e5d2a8f6c' },
    clock,
    log: (entry) => logs.push(entry),
    webhooks: host,
    startRun: (run) => {
      const started = start(run);
      runs.push(started);
      return started;
    },
  });
  receivers.push(receiver);
  const url = await receiver.listen(0);
  return { receiver, logs, runs, port: Number(new URL(url).port), host };
}

const subscribes = (simulator: Provider) =>
  simulator.calls.filter((call) => call.method === 'POST' && call.path === '/webhooks');
const calls = (simulator: Provider, method: string) => simulator.calls.filter((call) => call.method === method);
const only = (simulator: Provider) => [...simulator.live.values()][0]!;
const ORDERS = [
  { id: 'o1', total: 10 },
  { id: 'o2', total: 32 },
];

describe('a provider webhook kept by the receiver', () => {
  it('subscribes once on listen with its delivery URL, and not again after a restart on the same state folder', async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    // Where the provider posts is the front's address, whichever receiver is behind it.
    const balancer = await front();
    const url = `http://${balancer.host}/api/connect/triggers/pub_orders`;
    const triggers = [hooked(simulator.url, { url })];
    const first = await serve(stateDir, clock, triggers);
    balancer.to(first.port);
    expect(subscribes(simulator)).toEqual([
      {
        method: 'POST',
        path: '/webhooks',
        authorization: `Bearer ${PROVIDER_TOKEN}`,
        body: { url, events: ['order.created'] },
      },
    ]);
    await first.receiver.close();
    expect(calls(simulator, 'DELETE')).toEqual([]);
    const second = await serve(stateDir, clock, triggers);
    balancer.to(second.port);
    expect(subscribes(simulator)).toHaveLength(1);
    expect(simulator.live.size).toBe(1);
    // The kept subscription's events reach the receiver now behind the front, verified with its kept secret.
    const answer = await simulator.send(
      only(simulator),
      { type: 'order.created', orders: ORDERS },
      { eventId: 'msg_1' },
    );
    expect(answer).toMatchObject({ status: 200, body: { accepted: true, duplicate: false } });
    expect(await Promise.all(second.runs)).toEqual([{ records: 1 }]);
  });

  it('renews at 80% of the life left on its clock, and tries a failed renewal again after a backoff', async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    const { receiver, logs } = await serve(stateDir, clock, [hooked(simulator.url)]);
    await clock.advance(LIFE_MS * 0.8 - 1);
    await receiver.webhooksSettled();
    expect(calls(simulator, 'PATCH')).toEqual([]);
    simulator.failNextRenewals(1);
    await clock.advance(1);
    await receiver.webhooksSettled();
    expect(calls(simulator, 'PATCH')).toHaveLength(1);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'error', code: 'provider_unavailable', triggerId: 'trg_orders' }),
    );
    await clock.advance(999);
    await receiver.webhooksSettled();
    expect(calls(simulator, 'PATCH')).toHaveLength(1);
    await clock.advance(1);
    await receiver.webhooksSettled();
    expect(calls(simulator, 'PATCH')).toHaveLength(2);
    expect(only(simulator).expiresAt).toBe(clock.now() + LIFE_MS);
    // The next renewal falls at 80% of the new life.
    await clock.advance(LIFE_MS * 0.8);
    await receiver.webhooksSettled();
    expect(calls(simulator, 'PATCH')).toHaveLength(3);
  });

  it('subscribes anew, once, when the provider no longer knows the subscription it renews, and accepts events under the new secret', async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    const { receiver, logs, runs } = await serve(stateDir, clock, [hooked(simulator.url)]);
    const forgotten = only(simulator);
    // The provider dropped it: a renewal is answered 404.
    simulator.live.delete(forgotten.id);
    await clock.advance(LIFE_MS * 0.8);
    await receiver.webhooksSettled();
    expect(calls(simulator, 'PATCH')).toHaveLength(1);
    expect(subscribes(simulator)).toHaveLength(2);
    const renewed = only(simulator);
    expect(renewed.id).not.toBe(forgotten.id);
    expect(logs.filter((entry) => entry.message.includes(`no longer knows subscription ${forgotten.id}`))).toEqual([
      expect.objectContaining({ level: 'warn', triggerId: 'trg_orders', code: 'not_found' }),
    ]);
    expect(logs.filter((entry) => entry.level === 'error')).toEqual([]);
    const kept = await everyFile(join(stateDir, WEBHOOKS_FOLDER), '.json');
    expect(kept).toContain(renewed.id);
    expect(kept).not.toContain(forgotten.id);
    // Nothing is tried again for the old one, and the new one is renewed at 80% of its own life.
    await clock.advance(60_000);
    await receiver.webhooksSettled();
    expect(calls(simulator, 'PATCH')).toHaveLength(1);
    const event = { type: 'order.created', orders: ORDERS };
    const stale = await simulator.send(forgotten, event, { eventId: 'msg_old' });
    expect(stale.body).toMatchObject({ accepted: false, code: 'signature_mismatch' });
    const answer = await simulator.send(renewed, event, { eventId: 'msg_1' });
    expect(answer).toMatchObject({ status: 200, body: { accepted: true, duplicate: false } });
    expect(await Promise.all(runs)).toEqual([{ records: 1 }]);
  });

  it('unsubscribes and forgets a subscription once its trigger left the configuration and the receiver starts again', async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    const first = await serve(stateDir, clock, [hooked(simulator.url), plain]);
    const id = only(simulator).id;
    await first.receiver.close();
    await serve(stateDir, clock, [plain]);
    expect(calls(simulator, 'DELETE')).toEqual([
      { method: 'DELETE', path: `/webhooks/${id}`, authorization: `Bearer ${PROVIDER_TOKEN}`, body: undefined },
    ]);
    expect(simulator.live.size).toBe(0);
    expect(await everyFile(join(stateDir, WEBHOOKS_FOLDER))).toBe('');
  });

  it('ends every subscription when the configuration lists no trigger', async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    const first = await serve(stateDir, clock, [hooked(simulator.url)]);
    await first.receiver.close();
    await serve(stateDir, clock, []);
    expect(calls(simulator, 'DELETE')).toHaveLength(1);
    expect(simulator.live.size).toBe(0);
    expect(await everyFile(join(stateDir, WEBHOOKS_FOLDER))).toBe('');
  });

  it("turns a signed event into a run with the connector's records, and keeps the secret out of every other file, log and receipt", async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    const { logs, runs } = await serve(stateDir, clock, [hooked(simulator.url)]);
    const subscription = only(simulator);
    const answer = await simulator.send(subscription, { type: 'order.created', orders: ORDERS }, { eventId: 'msg_1' });
    expect(answer).toMatchObject({ status: 200, body: { accepted: true, duplicate: false } });
    expect(await Promise.all(runs)).toEqual([{ records: 1 }]);
    expect(simulator.imports).toEqual([ORDERS]);
    expect(await receipts(stateDir)).toMatchObject([
      { status: 'accepted', eventId: 'msg_1', eventType: 'order.created', recordCount: 2 },
    ]);
    const secretFiles = (await everyFile(join(stateDir, WEBHOOKS_FOLDER), '.secret')).trim();
    expect(secretFiles).toBe(subscription.secret);
    const [keptSecret] = await filesUnder(join(stateDir, WEBHOOKS_FOLDER), '.secret');
    expect((await stat(keptSecret!)).mode & 0o777).toBe(0o600);
    const everythingElse = await everyFile(stateDir, '.json');
    expect(everythingElse).toContain(subscription.id);
    expect(everythingElse).not.toContain(subscription.secret.slice(6));
    expect(JSON.stringify(logs)).not.toContain(subscription.secret.slice(6));
  });

  it('keeps the secret it offers out of the logs, the error and every file but its own when a refusal quotes it', async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    simulator.refuseNextSubscribes(1);
    const connection = { id: 'hooks-main', baseUrl: simulator.url };
    const offering = hooked(simulator.url, { webhook: { connector: 'hooks', trigger: 'orders.offered', connection } });
    const { receiver, logs, runs, host } = await serve(stateDir, clock, [offering]);
    const quoted = subscribes(simulator)[0]!.body!.secret as string;
    expect(quoted).toMatch(/^whsec_/);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'error', code: 'provider_rejected' }));
    // The error of such a call, as the SDK's pipeline hands it to the receiver.
    simulator.refuseNextSubscribes(1);
    const offered = `whsec_${'b'.repeat(43)}=`;
    const error = await createExecutor({ ...host, resolveConnection: (id) => ({ ...connection, id }) })
      .callTrigger({
        connectorKey: 'hooks',
        trigger: 'orders.offered',
        call: 'subscribe',
        connectionId: 'hooks-main',
        input: { url: 'http://127.0.0.1:9/api/connect/triggers/pub_orders', secret: offered },
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'provider_rejected', message: expect.stringContaining('[REDACTED]') });
    expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain(offered.slice(6, 30));
    // Tried again: the provider takes the new secret offered and answers it back.
    await clock.advance(1_000);
    await receiver.webhooksSettled();
    const subscription = only(simulator);
    expect(subscription.secret).not.toBe(quoted);
    const answer = await simulator.send(subscription, { type: 'order.created', orders: ORDERS }, { eventId: 'msg_1' });
    expect(answer).toMatchObject({ status: 200, body: { accepted: true } });
    await Promise.all(runs);
    const secretFile = await everyFile(join(stateDir, WEBHOOKS_FOLDER), '.secret');
    expect(secretFile.trim()).toBe(subscription.secret);
    const secretFiles = await filesUnder(stateDir, '.secret');
    const others = (await filesUnder(stateDir)).filter((file) => !secretFiles.includes(file));
    for (const secret of [quoted, subscription.secret]) {
      expect(JSON.stringify(logs)).not.toContain(secret.slice(6, 30));
      for (const file of others) expect(await readFile(file, 'utf8')).not.toContain(secret.slice(6, 30));
    }
  });

  it('refuses a forged, a stale, a replayed and an unreadable event with typed reasons', async () => {
    const clock = testClock();
    const simulator = await provider(clock);
    const stateDir = await stateFolder();
    const { runs } = await serve(stateDir, clock, [hooked(simulator.url)]);
    const subscription = only(simulator);
    const event = { type: 'order.created', orders: ORDERS };
    const forged = await simulator.send(subscription, event, {
      eventId: 'msg_1',
      secret: 'whsec_Zm9yZ2VkLXNlY3JldC1vZi1hLXRoaWVm',
    });
    expect(forged).toEqual({
      status: 401,
      body: expect.objectContaining({ accepted: false, code: 'signature_mismatch' }),
    });
    const stale = await simulator.send(subscription, event, { eventId: 'msg_1', timestamp: -3600 });
    expect(stale.body).toMatchObject({ accepted: false, code: 'outside_tolerance' });
    const unreadable = await simulator.send(subscription, { orders: [{ id: 7 }] }, { eventId: 'msg_2' });
    expect(unreadable).toEqual({ status: 400, body: expect.objectContaining({ accepted: false, code: 'malformed' }) });
    const first = await simulator.send(subscription, event, { eventId: 'msg_1' });
    const replayed = await simulator.send(subscription, event, { eventId: 'msg_1' });
    expect(replayed.body).toMatchObject({ accepted: true, duplicate: true, code: 'duplicate' });
    expect(replayed.body.executionId).toBe(first.body.executionId);
    await Promise.all(runs);
    expect(simulator.imports).toEqual([ORDERS]);
  });

  it('refuses, typed and before listening, a webhook trigger with no host or whose connector declares no such trigger', () => {
    const clock = testClock();
    const bad = trigger({
      secretEnv: undefined,
      webhook: { connector: 'hooks', trigger: 'orders.deleted', connection: 'hooks-main' },
    });
    const make = (webhooks?: ExecutorHost) => () =>
      createReceiver({
        config: { triggers: [bad] },
        stateDir: '/nonexistent',
        clock,
        ...(webhooks ? { webhooks } : {}),
      });
    expect(make()).toThrow(TriggerConfigError);
    expect(make()).toThrow(/triggers\[0\]\.webhook/);
    expect(make({ connectors: [hooks], resolveCredential: () => PROVIDER_TOKEN })).toThrow(
      /triggers\[0\]\.webhook\.trigger/,
    );
  });
});
