import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogEntry } from '@plugboard/sdk';
import { type ManualClock, manualClock, signDelivery } from '@plugboard/sdk/host';
import { afterEach } from 'vitest';
import {
  createReceiver,
  listDeliveries,
  type Receiver,
  type ReceiverOptions,
  type TriggerDelivery,
} from '../src/index.js';

/**
 * What the receiver's tests share: a state folder and a clock per test, receivers on 127.0.0.1:0
 * closed after each test, a trigger in the platform's shape, deliveries signed as rule 13 says.
 */

/** The trigger's signing secret, and the one it was rotated from, as the environment holds them. */
export const SECRET = 'whsec_sandbox_rcv_4d1f9a0c7b3e5d2a8f6c';
export const PREVIOUS_SECRET = 'whsec_sandbox_rcv_prev_9e8d7c6b5a4f3e2d';
export const ENV = { TRIGGER_SECRET: SECRET, TRIGGER_PREVIOUS_SECRET: PREVIOUS_SECRET };

/** A trigger as the platform gives it, with the names of its secrets' variables; `fields` replace or add. */
export function trigger(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    triggerId: 'trg_orders',
    flowId: 'flow_1',
    kind: 'signed_webhook',
    name: 'Orders',
    status: 'active',
    verification: 'hmac_sha256',
    environment: 'sandbox',
    url: '/api/connect/triggers/pub_orders',
    secretLast4: SECRET.slice(-4),
    secretRotatedAt: null,
    previousSecretValidUntil: null,
    lastDeliveryAt: null,
    disabledAt: null,
    maxBodyBytes: 65_536,
    maxDeliveriesPerMinute: 100,
    timestampToleranceSeconds: 300,
    inputRetentionDays: 7,
    createdAt: '2025-12-01T00:00:00Z',
    secretEnv: 'TRIGGER_SECRET',
    ...fields,
  };
}

const cleanups: Array<() => Promise<void>> = [];

/**
 * Registers the hook that closes the test's receivers and removes its folders after each test:
 * call it once, at the top level of each test file (a worker serves file after file, and a
 * module's own top-level hooks would register in the first file only).
 */
export function useCleanup(): void {
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
}

/** A fresh state folder, removed after the test. */
export async function stateFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plugboard-triggers-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A clock the test drives, at 2026-01-01T00:00:00Z. */
export function testClock(): ManualClock {
  return manualClock();
}

export interface Started {
  receiver: Receiver;
  /** The full URL of each trigger, by triggerId. */
  urls: Record<string, string>;
  logs: LogEntry[];
}

/** A receiver listening on 127.0.0.1:0, closed after the test unless the test closed it. */
export async function startReceiver(
  options: Partial<ReceiverOptions> & Pick<ReceiverOptions, 'stateDir' | 'clock'>,
): Promise<Started> {
  const logs: LogEntry[] = [];
  const receiver = createReceiver({
    config: { triggers: [trigger()] },
    env: ENV,
    log: (entry) => logs.push(entry),
    ...options,
  });
  await receiver.listen(0);
  let closed = false;
  const close = receiver.close.bind(receiver);
  receiver.close = async (closing) => {
    if (closed) return;
    closed = true;
    await close(closing);
  };
  cleanups.push(() => receiver.close());
  const urls = Object.fromEntries(receiver.addresses().map((address) => [address.triggerId, address.url]));
  return { receiver, urls, logs };
}

/** Rule 13's headers of a delivery signed with `secret` at `timestamp` (seconds). */
export function signed(
  body: string | Uint8Array,
  options: { secret?: string; eventId?: string; timestamp: number },
): Record<string, string> {
  const eventId = options.eventId ?? 'evt_1';
  const secret = options.secret ?? SECRET;
  return {
    'content-type': 'application/json',
    'x-platform-timestamp': String(options.timestamp),
    'x-platform-event-id': eventId,
    'x-platform-signature': signDelivery({ secret, timestamp: options.timestamp, eventId, body }),
  };
}

/** The seconds the clock says now, as a sender stamps a delivery. */
export const secondsOf = (clock: ManualClock) => Math.floor(clock.now() / 1000);

export interface Answered {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** Posts a body to a URL and reads the JSON answer. */
export async function post(url: string, body: string | Uint8Array, headers: Record<string, string>): Promise<Answered> {
  const response = await fetch(url, { method: 'POST', body, headers });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** Posts a delivery signed now on `clock`. */
export function deliver(url: string, clock: ManualClock, body: unknown, eventId = 'evt_1'): Promise<Answered> {
  const text = JSON.stringify(body);
  return post(url, text, signed(text, { eventId, timestamp: secondsOf(clock) }));
}

/** Every receipt kept in a state folder. */
export async function receipts(stateDir: string, triggerId?: string): Promise<TriggerDelivery[]> {
  const found: TriggerDelivery[] = [];
  for await (const receipt of listDeliveries(stateDir, triggerId === undefined ? {} : { triggerId }))
    found.push(receipt);
  return found;
}

/** The text of every file under a folder (those whose name ends in `ending`), for a search that must find nothing. */
export async function everyFile(dir: string, ending = ''): Promise<string> {
  const texts: string[] = [];
  for (const file of await filesUnder(dir, ending)) texts.push(await readFile(file, 'utf8'));
  return texts.join('\n');
}

/** The path of every file under a folder whose name ends in `ending`; none when the folder is not there. */
export async function filesUnder(dir: string, ending = ''): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(ending))
    .map((entry) => join(entry.parentPath, entry.name));
}
