import { createHash } from 'node:crypto';
import { request } from 'node:http';
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
  PREVIOUS_SECRET,
  useCleanup,
} from './support.js';

/**
 * Each refusal of the receiver over real HTTP on 127.0.0.1, with its reasonCode and status, in
 * the order the platform checks them, and the receipt each request to a known trigger leaves.
 */

useCleanup();

const ORDER = { type: 'order.created', records: [{ id: 'ord_1', total: 12 }] };

/**
 * Sends `head` (a request's line and headers, no body) on a socket of its own: the first answer's
 * status line once it came, the socket, and `after(pattern)`: what came after that first answer,
 * once it matches.
 */
async function asking(port: number, head: string) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let text = '';
  socket.on('data', (data: Buffer) => {
    text += data.toString('latin1');
  });
  const seen = (pattern: RegExp, from = 0) =>
    new Promise<string>((resolve) => {
      const check = () => pattern.test(text.slice(from)) && resolve(text.slice(from));
      socket.on('data', check);
      check();
    });
  socket.write(head);
  const first = (await seen(/\r\n\r\n/)).split('\r\n', 1)[0]!;
  const end = text.indexOf('\r\n\r\n') + 4;
  return { first, socket, after: (pattern: RegExp) => seen(pattern, end) };
}

describe('the receiver accepts a genuine delivery', () => {
  it('answers 200 with its deliveryId and payload digest, no execution without run, and keeps an accepted receipt', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const text = JSON.stringify(ORDER);
    const answer = await post(urls.trg_orders!, text, signed(text, { eventId: 'evt_a1', timestamp: secondsOf(clock) }));
    const sha = createHash('sha256').update(text).digest('hex');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      accepted: true,
      deliveryId: expect.stringMatching(/^dlv_/),
      executionId: null,
      payloadSha256: sha,
      duplicate: false,
    });
    expect(await receipts(stateDir)).toEqual([
      {
        deliveryId: answer.body.deliveryId,
        triggerId: 'trg_orders',
        receivedAt: '2026-01-01T00:00:00.000Z',
        status: 'accepted',
        reasonCode: null,
        httpStatus: 200,
        eventId: 'evt_a1',
        eventType: 'order.created',
        payloadSha256: sha,
        sizeBytes: Buffer.byteLength(text),
        recordCount: 1,
        executionId: null,
      },
    ]);
  });

  it('takes a body without a records array as one record', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    expect((await deliver(urls.trg_orders!, clock, { id: 'ord_9' })).status).toBe(200);
    expect((await receipts(stateDir))[0]).toMatchObject({ recordCount: 1, eventType: null });
  });
});

describe('the receiver refuses, each with its reasonCode and status', () => {
  it('an unknown publicId: 404 unknown_trigger, with no receipt (no trigger holds it)', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { receiver } = await startReceiver({ stateDir, clock });
    const text = JSON.stringify(ORDER);
    const answer = await post(
      `${receiver.url}/api/connect/triggers/pub_nobody`,
      text,
      signed(text, { timestamp: secondsOf(clock) }),
    );
    expect(answer).toMatchObject({ status: 404, body: { accepted: false, code: 'unknown_trigger' } });
    expect((await post(`${receiver.url}/elsewhere`, text, {})).status).toBe(404);
    expect(await receipts(stateDir)).toEqual([]);
  });

  it('a method other than POST: 405 with Allow', async () => {
    const clock = testClock();
    const { urls } = await startReceiver({ stateDir: await stateFolder(), clock });
    const response = await fetch(urls.trg_orders!);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('a trigger whose status is not active: 403 disabled, even when signed', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock, config: { triggers: [trigger({ status: 'disabled' })] } });
    const answer = await deliver(urls.trg_orders!, clock, ORDER);
    expect(answer).toMatchObject({ status: 403, body: { accepted: false, code: 'disabled' } });
    expect(await receipts(stateDir)).toEqual([
      expect.objectContaining({ status: 'refused', reasonCode: 'disabled', httpStatus: 403, sizeBytes: null }),
    ]);
  });

  it('a forged delivery (another secret, or the body changed): 401 signature_mismatch, naming no part', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const text = JSON.stringify(ORDER);
    const wrongSecret = signed(text, { secret: 'whsec_sandbox_someone_else_0000', timestamp: secondsOf(clock) });
    const changed = signed(text, { timestamp: secondsOf(clock) });
    for (const answer of [
      await post(urls.trg_orders!, text, wrongSecret),
      await post(urls.trg_orders!, text.replace('12', '13'), changed),
    ])
      expect(answer).toEqual({
        status: 401,
        headers: expect.anything(),
        body: { accepted: false, deliveryId: expect.stringMatching(/^dlv_/), code: 'signature_mismatch' },
      });
    const kept = await receipts(stateDir);
    expect(kept.map((receipt) => [receipt.reasonCode, receipt.httpStatus, receipt.recordCount])).toEqual([
      ['signature_mismatch', 401, null],
      ['signature_mismatch', 401, null],
    ]);
  });

  it("a predecessor's signature when the trigger has no previous secret: signature_mismatch", async () => {
    const clock = testClock();
    const { urls } = await startReceiver({ stateDir: await stateFolder(), clock });
    const text = JSON.stringify(ORDER);
    const answer = await post(
      urls.trg_orders!,
      text,
      signed(text, { secret: PREVIOUS_SECRET, timestamp: secondsOf(clock) }),
    );
    expect(answer.body.code).toBe('signature_mismatch');
  });

  it('a timestamp further from the clock than the tolerance, either way: 401 outside_tolerance', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const text = JSON.stringify(ORDER);
    const now = secondsOf(clock);
    const codes: unknown[] = [];
    for (const timestamp of [now - 301, now + 301, now - 300, now + 300]) {
      const answer = await post(urls.trg_orders!, text, signed(text, { eventId: `evt_${timestamp}`, timestamp }));
      codes.push([answer.status, answer.body.code ?? 'accepted']);
    }
    expect(codes).toEqual([
      [401, 'outside_tolerance'],
      [401, 'outside_tolerance'],
      [200, 'accepted'],
      [200, 'accepted'],
    ]);
  });

  it('missing or garbled headers, a body that is not a JSON object, records that are not objects: 400 malformed', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const url = urls.trg_orders!;
    const text = JSON.stringify(ORDER);
    const headers = signed(text, { timestamp: secondsOf(clock) });
    const { 'x-platform-signature': _signature, ...unsigned } = headers;
    const signedBody = (body: string | Uint8Array) => post(url, body, signed(body, { timestamp: secondsOf(clock) }));
    const answers = [
      await post(url, text, unsigned),
      await post(url, text, { ...headers, 'x-platform-timestamp': 'yesterday' }),
      await signedBody('not json'),
      await signedBody('[1,2]'),
      await signedBody('{"records":[1,2]}'),
      await signedBody('{"__proto__":{"polluted":true}}'),
      // Not UTF-8 (Latin-1's é): refused, never kept with U+FFFD in its place.
      await signedBody(Buffer.from('{"records":[{"name":"café"}]}', 'latin1')),
    ];
    expect(answers.map((answer) => [answer.status, answer.body.code])).toEqual(Array(7).fill([400, 'malformed']));
    expect((await receipts(stateDir)).every((receipt) => receipt.reasonCode === 'malformed')).toBe(true);
  });

  it('a declared Content-Length over maxBodyBytes: 413 too_large, the body not read', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock, config: { triggers: [trigger({ maxBodyBytes: 100 })] } });
    const text = JSON.stringify({ records: [{ note: 'x'.repeat(200) }] });
    const answer = await post(urls.trg_orders!, text, signed(text, { timestamp: secondsOf(clock) }));
    expect(answer).toMatchObject({ status: 413, body: { accepted: false, code: 'too_large' } });
    expect(await receipts(stateDir)).toEqual([expect.objectContaining({ reasonCode: 'too_large', sizeBytes: null })]);
  });

  it('asked first (Expect: 100-continue), invites a body only where it would read it', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock, config: { triggers: [trigger({ maxBodyBytes: 100 })] } });
    const { port, pathname } = new URL(urls.trg_orders!);
    const text = JSON.stringify({ records: [{ id: 'r1' }] });
    const headers = Object.entries(signed(text, { timestamp: secondsOf(clock) }))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const ask = (path: string, length: number) =>
      asking(
        Number(port),
        `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}content-length: ${length}\r\nexpect: 100-continue\r\n\r\n`,
      );
    const tooLarge = await ask(pathname, 1_000_000);
    expect(tooLarge.first).toMatch(/^HTTP\/1\.1 413 /);
    tooLarge.socket.destroy();
    const unknown = await ask('/api/connect/triggers/pub_nobody', text.length);
    expect(unknown.first).toMatch(/^HTTP\/1\.1 404 /);
    unknown.socket.destroy();
    const invited = await ask(pathname, text.length);
    expect(invited.first).toMatch(/^HTTP\/1\.1 100 Continue/);
    invited.socket.write(text);
    expect(await invited.after(/"accepted":/)).toMatch(/^HTTP\/1\.1 200 [\s\S]*"accepted":true/);
    invited.socket.destroy();
    expect((await receipts(stateDir)).map((receipt) => receipt.reasonCode)).toEqual(['too_large', null]);
  });

  it('headers larger than the server reads: 431 from node:http, no receipt', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    const status = await new Promise<number>((resolve, reject) => {
      const sent = request(
        urls.trg_orders!,
        { method: 'POST', headers: { 'x-padding': 'p'.repeat(20_000) } },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      sent.on('error', reject);
      sent.end('{}');
    });
    expect(status).toBe(431);
    expect(await receipts(stateDir)).toEqual([]);
  });
});
