import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  deliver,
  post,
  receipts,
  secondsOf,
  signed,
  startReceiver,
  stateFolder,
  testClock,
  trigger,
  useCleanup,
} from './support.js';

/**
 * The limits a sender meets before its delivery is looked at: `maxDeliveriesPerMinute` as a
 * sliding window on the receiver's clock (429 with Retry-After), and `maxBodyBytes` enforced
 * while reading: a 10 MB body is refused at 64 KB, its connection closed, the rest never read.
 */

useCleanup();

const TEN_MB = 10 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

interface Upload {
  /** What the receiver answered (its status line and headers, and body). */
  answer: string;
  /** The body bytes the sender managed to hand to its socket before the receiver closed it. */
  written: number;
}

/** Sends a chunked body of 10 MB of 'a' (no Content-Length), until done or the receiver closes the connection. */
async function upload(url: string, headers: Record<string, string>): Promise<Upload> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  let answer = '';
  let closed = false;
  socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
  socket.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve((closed = true) && undefined)));
  const head = Object.entries({ ...headers, host: hostname, 'transfer-encoding': 'chunked' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST ${pathname} HTTP/1.1\r\n${head}\r\n`);
  let written = 0;
  while (written < TEN_MB && !closed) {
    const more = socket.write(`${CHUNK.length.toString(16)}\r\n${CHUNK.toString('latin1')}\r\n`, 'latin1');
    written += CHUNK.length;
    if (!more) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), ended]);
  }
  if (!closed) socket.end('0\r\n\r\n');
  await ended;
  return { answer, written };
}

/** Sends the head of a request declaring a 10 MB body, and no body: what the receiver answers, once it closed the connection. */
async function declareOnly(url: string, headers: Record<string, string>): Promise<string> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
  socket.on('error', () => undefined);
  const head = Object.entries({ ...headers, host: hostname, 'content-length': String(TEN_MB) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST ${pathname} HTTP/1.1\r\n${head}\r\n`);
  await new Promise((resolve) => socket.once('close', resolve));
  return answer;
}

describe('maxBodyBytes, enforced while reading', () => {
  it('answers a declared Content-Length of 10 MB with 413 too_large and closes, without waiting for a byte of the body', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const answer = await declareOnly(urls.trg_orders!, signed('', { timestamp: secondsOf(clock) }));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(await receipts(stateDir)).toEqual([expect.objectContaining({ reasonCode: 'too_large', sizeBytes: null })]);
  });

  it('refuses a 10 MB chunked body at 64 KB with 413 too_large, closes the connection and never reads the rest', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const sent = await upload(urls.trg_orders!, signed('', { timestamp: secondsOf(clock) }));
    expect(sent.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent.answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(sent.answer).toContain('"code":"too_large"');
    expect(sent.written).toBeLessThan(TEN_MB);
    const [receipt] = await receipts(stateDir);
    expect(receipt).toMatchObject({ reasonCode: 'too_large', httpStatus: 413, payloadSha256: null });
    // What the receiver read: past the limit by less than one chunk of the socket.
    expect(receipt!.sizeBytes).toBeGreaterThan(65_536);
    expect(receipt!.sizeBytes).toBeLessThanOrEqual(2 * 65_536);
  });

  it('reads no more than the limit and a chunk of each of a flood of 10 MB bodies sent at once', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const headers = signed('', { timestamp: secondsOf(clock) });
    const flood = await Promise.all(Array.from({ length: 12 }, () => upload(urls.trg_orders!, headers)));
    expect(flood.every((sent) => sent.answer.startsWith('HTTP/1.1 413 '))).toBe(true);
    const kept = await receipts(stateDir);
    expect(kept).toHaveLength(12);
    expect(kept.every((receipt) => receipt.sizeBytes! <= 2 * 65_536)).toBe(true);
  });
});

describe('maxDeliveriesPerMinute, a sliding window on the clock', () => {
  it('lets the limit through in a minute, then 429 rate_limited with Retry-After until the first leaves the window', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({
      stateDir,
      clock,
      config: { triggers: [trigger({ maxDeliveriesPerMinute: 3 })] },
    });
    const url = urls.trg_orders!;
    const statuses: number[] = [];
    for (const eventId of ['e1', 'e2']) statuses.push((await deliver(url, clock, { id: eventId }, eventId)).status);
    await clock.advance(20_000);
    statuses.push((await deliver(url, clock, { id: 'e3' }, 'e3')).status);
    const refused = await deliver(url, clock, { id: 'e4' }, 'e4');
    expect(statuses).toEqual([200, 200, 200]);
    expect(refused).toMatchObject({ status: 429, body: { accepted: false, code: 'rate_limited' } });
    expect(refused.headers.get('retry-after')).toBe('40');
    await clock.advance(39_000);
    expect((await deliver(url, clock, { id: 'e4' }, 'e4')).headers.get('retry-after')).toBe('1');
    await clock.advance(1_000);
    // The two of the first second left the window; the third, 20 s later, is still in it.
    expect((await deliver(url, clock, { id: 'e4' }, 'e4')).status).toBe(200);
    expect((await deliver(url, clock, { id: 'e5' }, 'e5')).status).toBe(200);
    expect((await deliver(url, clock, { id: 'e6' }, 'e6')).status).toBe(429);
    const codes = (await receipts(stateDir)).map((receipt) => receipt.reasonCode ?? 'accepted');
    expect(codes).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'rate_limited',
      'rate_limited',
      'accepted',
      'accepted',
      'rate_limited',
    ]);
  });

  it('keeps receipts of its early refusals at its own rate: past it a flood is answered alike, without one, said once a minute', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls, logs } = await startReceiver({
      stateDir,
      clock,
      config: {
        triggers: [
          trigger({ maxDeliveriesPerMinute: 2 }),
          trigger({
            triggerId: 'trg_off',
            url: '/api/connect/triggers/pub_off',
            status: 'disabled',
            maxDeliveriesPerMinute: 2,
          }),
        ],
      },
    });
    let sent = 0;
    // Each answer's code, and whether it names a receipt.
    const flood = async (url: string, count: number) => {
      const codes: unknown[] = [];
      for (let at = 0; at < count; at += 1, sent += 1) {
        const { body } = await deliver(url, clock, { id: `f${sent}` }, `f${sent}`);
        codes.push(`${body.code ?? 'accepted'}${body.deliveryId ? '' : ' (no receipt)'}`);
      }
      return codes;
    };
    const url = urls.trg_orders!;
    const unrecorded = (code: string, count: number) => Array(count).fill(`${code} (no receipt)`);
    expect(await flood(url, 8)).toEqual([
      'accepted',
      'accepted',
      'rate_limited',
      'rate_limited',
      ...unrecorded('rate_limited', 4),
    ]);
    expect(await flood(urls.trg_off!, 5)).toEqual(['disabled', 'disabled', ...unrecorded('disabled', 3)]);
    await clock.advance(30_000);
    expect(await flood(url, 2)).toEqual(unrecorded('rate_limited', 2));
    const warned = () => logs.filter((entry) => entry.level === 'warn').map((entry) => entry.triggerId);
    expect(warned()).toEqual(['trg_orders', 'trg_off']);
    await clock.advance(30_000);
    // A minute on: both windows let two more in, and the next refusal past them is said again.
    expect(await flood(url, 5)).toEqual([
      'accepted',
      'accepted',
      'rate_limited',
      'rate_limited',
      'rate_limited (no receipt)',
    ]);
    expect(warned()).toEqual(['trg_orders', 'trg_off', 'trg_orders']);
    const kept = (await receipts(stateDir)).map(
      (receipt) => `${receipt.triggerId} ${receipt.reasonCode ?? 'accepted'}`,
    );
    expect(kept).toEqual([
      'trg_orders accepted',
      'trg_orders accepted',
      'trg_orders rate_limited',
      'trg_orders rate_limited',
      'trg_off disabled',
      'trg_off disabled',
      'trg_orders accepted',
      'trg_orders accepted',
      'trg_orders rate_limited',
      'trg_orders rate_limited',
    ]);
  });

  it('counts forged and oversized requests too, so a flood cannot make the receiver read past the limit', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({
      stateDir,
      clock,
      config: { triggers: [trigger({ maxDeliveriesPerMinute: 2 })] },
    });
    const url = urls.trg_orders!;
    const forged = {
      'x-platform-signature': `v1=${'0'.repeat(64)}`,
      'x-platform-timestamp': String(secondsOf(clock)),
      'x-platform-event-id': 'f',
    };
    const answers = [
      await post(url, '{}', forged),
      await post(url, '{}', forged),
      await deliver(url, clock, { id: 'genuine' }),
    ];
    expect(answers.map((answer) => answer.body.code)).toEqual([
      'signature_mismatch',
      'signature_mismatch',
      'rate_limited',
    ]);
    expect((await receipts(stateDir))[2]).toMatchObject({
      reasonCode: 'rate_limited',
      sizeBytes: null,
      payloadSha256: null,
    });
  });
});
