import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { answer, type FaultServer, reset, type SeenRequest, startFaultServer } from '@plugboard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../src/index.js';
import { bufferIo, TOKEN } from './support.js';

/** A billable payment at a provider that deduplicates on `Idempotency-Key`: never retried by the pipeline. */
const payments = defineConnector({
  key: 'payments',
  name: 'Payments',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Payments at a provider that deduplicates on a key.',
  auth: bearerToken(),
  actions: [
    defineAction({
      key: 'payments.create',
      label: 'Create a payment',
      direction: 'destination',
      effect: { writes: true, idempotent: false, destructive: false },
      billable: true,
      idempotencyHeader: 'Idempotency-Key',
      entity: z.object({ id: z.string() }).meta({ id: 'CliPayment' }),
      input: z.object({ amount: z.number() }),
      write: (ctx, input) => ctx.http.post('/payments', input),
    }),
  ],
});

let server: FaultServer;
let home: string;
/** Payments the provider made: one per key it had not seen. */
let effects = 0;
let losing = 0;

beforeEach(async () => {
  effects = 0;
  losing = 0;
  const made = new Map<string, string>();
  server = await startFaultServer((request: SeenRequest) => {
    const key = String(request.headers['idempotency-key']);
    let id = made.get(key);
    if (id === undefined) {
      effects += 1;
      id = `pay_${effects}`;
      made.set(key, id);
    }
    if (losing > 0) {
      losing -= 1;
      return reset();
    }
    return answer({ status: 201, body: { id } });
  });
  home = await mkdtemp(join(tmpdir(), 'plugboard-home-'));
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

async function pay(key: string) {
  const buffers = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN, HOME: home });
  const argv = ['run', 'payments', 'payments.create', '--input', '{"amount":10}', '--base-url', server.url];
  const code = await runCli([...argv, '--state', join(home, 'state'), '--idempotency-key', key], buffers.io, {
    pack: new Map([['payments', payments]]),
  });
  return { code, stdout: buffers.stdout(), stderr: buffers.stderr() };
}

describe('plugboard run --idempotency-key, for a provider that deduplicates on it', () => {
  it('sends the key; a payment whose answer was lost exits 1 (retry), and the repeat pays once', async () => {
    losing = 1;
    const lost = await pay('pay-1');
    expect(lost.code).toBe(1);
    expect(lost.stderr).not.toContain('idempotency settle');
    const repeat = await pay('pay-1');
    expect(repeat.code).toBe(0);
    expect(JSON.parse(repeat.stdout)).toMatchObject({ id: 'pay_1' });
    const keys = server.requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^pb_[0-9a-f]{40}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(effects).toBe(1);
  });
});
