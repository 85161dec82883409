import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, signDelivery, verifyDelivery } from '../src/deliveries/platform.js';
import { InvalidInputError } from '../src/errors.js';

/**
 * Rule 13: `X-Platform-Signature: v1=<hex HMAC-SHA256>` over `v1:<timestamp>:<event id>:<raw body>`.
 * The expected values are computed here with node:crypto from the rule's text, apart from the
 * SDK's own code. Time is a fixed `now`, never the machine's clock.
 */

const SECRET = 'plat_whsec_c2lnbmluZy1zZWNyZXQtb2YtYS10cmlnZ2Vy';
const PREVIOUS = 'plat_whsec_cHJldmlvdXMtc2lnbmluZy1zZWNyZXQtb2YtaXQ';
const T = 1_767_225_600; // 2026-01-01T00:00:00Z
const NOW = T * 1000;
const ID = 'evt_01HZX3';
const BODY = '{"records":[{"id":"r1","name":"Zoë"}]}';

function reference(secret: string, timestamp: number | string, eventId: string, body: string): string {
  return createHmac('sha256', secret).update(`v1:${timestamp}:${eventId}:${body}`, 'utf8').digest('hex');
}

type Headers = Record<string, string | string[] | undefined>;

function headersFor(signature: string, timestamp: number | string = T, eventId = ID): Headers {
  return {
    'x-platform-signature': signature,
    'x-platform-timestamp': String(timestamp),
    'x-platform-event-id': eventId,
  };
}

function verify(headers: Headers, options: Partial<Parameters<typeof verifyDelivery>[0]> = {}) {
  return verifyDelivery({
    headers,
    body: Buffer.from(BODY, 'utf8'),
    secret: SECRET,
    timestampToleranceSeconds: 300,
    now: NOW,
    ...options,
  });
}

const mismatch = { ok: false, reasonCode: 'signature_mismatch' };
const malformed = { ok: false, reasonCode: 'malformed' };
const outside = { ok: false, reasonCode: 'outside_tolerance' };

describe('signDelivery and deliveryHeaders', () => {
  it('sign the text rule 13 names, as v1=<hex>, the same for a string body and its UTF-8 bytes', () => {
    const expected = `v1=${reference(SECRET, T, ID, BODY)}`;
    expect(signDelivery({ secret: SECRET, timestamp: T, eventId: ID, body: BODY })).toBe(expected);
    expect(signDelivery({ secret: SECRET, timestamp: T, eventId: ID, body: new TextEncoder().encode(BODY) })).toBe(
      expected,
    );
  });

  it('give the three headers a sender sends, which verifyDelivery accepts', () => {
    const headers = deliveryHeaders({ secret: SECRET, timestamp: T, eventId: ID, body: BODY });
    expect(headers).toEqual({
      'x-platform-signature': `v1=${reference(SECRET, T, ID, BODY)}`,
      'x-platform-timestamp': String(T),
      'x-platform-event-id': ID,
    });
    expect(verify(headers)).toEqual({ ok: true, eventId: ID, timestamp: T });
  });

  it.each([
    ['timestamp', { timestamp: Date.now() }, /timestamp: .*seconds/],
    ['timestamp', { timestamp: 1.5 }, /timestamp/],
    ['timestamp', { timestamp: -1 }, /timestamp/],
    ['eventId', { eventId: '' }, /eventId/],
    ['eventId', { eventId: 'a:b' }, /eventId: .*':'/],
    ['eventId', { eventId: 'evt\n1' }, /eventId/],
    ['eventId', { eventId: 'x'.repeat(201) }, /eventId: .*200/],
    ['secret', { secret: '' }, /secret/],
    ['body', { body: 42 }, /body/],
  ])('refuse a bad %s with a typed error naming it, before signing', (_, change, message) => {
    const input = { secret: SECRET, timestamp: T, eventId: ID, body: BODY, ...change } as Parameters<
      typeof signDelivery
    >[0];
    for (const sign of [signDelivery, deliveryHeaders]) {
      const error = catchError(() => sign(input));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).code).toBe('invalid_input');
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(SECRET);
    }
  });
});

describe('verifyDelivery', () => {
  const good = `v1=${reference(SECRET, T, ID, BODY)}`;

  it('accepts a delivery signed with the secret, and answers its event id and timestamp', () => {
    expect(verify(headersFor(good))).toEqual({ ok: true, eventId: ID, timestamp: T });
  });

  it('refuses a changed body, event id, timestamp or secret alike, never saying which', () => {
    const answers = [
      verify(headersFor(good), { body: Buffer.from(`${BODY} `) }),
      verify(headersFor(good, T, 'evt_other')),
      verify(headersFor(good, T + 1)),
      verify(headersFor(good), { secret: PREVIOUS }),
      verify(headersFor(`v1=${reference(SECRET, T, ID, BODY).replace(/^./, (c) => (c === '0' ? '1' : '0'))}`)),
    ];
    for (const answer of answers) expect(answer).toStrictEqual(mismatch);
  });

  it('holds the timestamp within the tolerance both ways, the edges included', () => {
    const signedAt = (timestamp: number) => headersFor(`v1=${reference(SECRET, timestamp, ID, BODY)}`, timestamp);
    expect(verify(signedAt(T - 300))).toEqual({ ok: true, eventId: ID, timestamp: T - 300 });
    expect(verify(signedAt(T + 300))).toEqual({ ok: true, eventId: ID, timestamp: T + 300 });
    expect(verify(signedAt(T - 301))).toStrictEqual(outside);
    expect(verify(signedAt(T + 301))).toStrictEqual(outside);
    expect(verify(signedAt(T), { now: NOW + 300_001 })).toStrictEqual(outside);
    expect(verify(signedAt(T), { timestampToleranceSeconds: 0 })).toEqual({ ok: true, eventId: ID, timestamp: T });
    expect(verify(signedAt(T), { timestampToleranceSeconds: 0, now: NOW + 1 })).toStrictEqual(outside);
  });

  it('accepts several values in one header, comma or space separated, ignoring unknown versions', () => {
    const wrong = `v1=${'0'.repeat(64)}`;
    expect(verify(headersFor(`${wrong},${good}`)).ok).toBe(true);
    expect(verify(headersFor(`${wrong} ${good}`)).ok).toBe(true);
    expect(verify(headersFor(`${wrong}, ${good}`)).ok).toBe(true);
    expect(verify(headersFor(`v0=abc v2=${'f'.repeat(64)} ${good}`)).ok).toBe(true);
    expect(verify(headersFor(good.toUpperCase().replace('V1=', 'v1='))).ok).toBe(true);
    // A header sent twice: node:http gives an array to a host that asks for each value.
    expect(verify({ ...headersFor(good), 'x-platform-signature': [wrong, good] }).ok).toBe(true);
    // Only versions it does not know: nothing it could match.
    expect(verify(headersFor(`v2=${'f'.repeat(64)}`))).toStrictEqual(mismatch);
  });

  it.each<[string, Headers]>([
    ['no signature header', { 'x-platform-timestamp': String(T), 'x-platform-event-id': ID }],
    ['no timestamp header', { 'x-platform-signature': good, 'x-platform-event-id': ID }],
    ['no event id header', { 'x-platform-signature': good, 'x-platform-timestamp': String(T) }],
    ['an empty signature', headersFor('')],
    ['a signature without a version', headersFor(reference(SECRET, T, ID, BODY))],
    ['a v1 value that is not 64 hex digits', headersFor(`v1=${reference(SECRET, T, ID, BODY).slice(1)}`)],
    ['a v1 value that is not hex', headersFor(`v1=${'g'.repeat(64)}`)],
    ['a garbled token among good ones', headersFor(`${good} =abc`)],
    ['a fractional timestamp', headersFor(good, `${T}.5`)],
    ['a negative timestamp', headersFor(good, `-${T}`)],
    ['a timestamp in exponent form', headersFor(good, '1.7e9')],
    ['a timestamp in milliseconds', headersFor(good, String(NOW))],
    ['a timestamp with spaces', headersFor(good, ` ${T}`)],
    ['a timestamp sent twice', { ...headersFor(good), 'x-platform-timestamp': [String(T), String(T)] }],
    ['an event id of 201 characters', headersFor(good, T, 'e'.repeat(201))],
    ['an event id with a control character', headersFor(good, T, 'evt\u0007')],
    ['an event id with a colon', headersFor(good, T, 'evt:1')],
    ['an empty event id', headersFor(good, T, '')],
  ])('calls %s malformed', (_, headers) => {
    expect(verify(headers)).toStrictEqual(malformed);
  });

  it('reads an event id of 200 characters', () => {
    const id = 'e'.repeat(200);
    expect(verify(headersFor(`v1=${reference(SECRET, T, id, BODY)}`, T, id))).toEqual({
      ok: true,
      eventId: id,
      timestamp: T,
    });
  });
});

describe('the predecessor secret', () => {
  const byPrevious = headersFor(`v1=${reference(PREVIOUS, T, ID, BODY)}`);
  const bySecret = headersFor(`v1=${reference(SECRET, T, ID, BODY)}`);
  const until = new Date(NOW + 60_000).toISOString();

  it('is accepted until previousSecretValidUntil, and not from that instant on', () => {
    const rotation = { previousSecret: PREVIOUS, previousSecretValidUntil: until };
    expect(verify(byPrevious, rotation)).toEqual({ ok: true, eventId: ID, timestamp: T });
    expect(verify(byPrevious, { ...rotation, now: NOW + 59_999 }).ok).toBe(true);
    expect(verify(byPrevious, { ...rotation, now: NOW + 60_000 })).toStrictEqual(mismatch);
    expect(
      verify(byPrevious, { ...rotation, previousSecretValidUntil: new Date(NOW - 1).toISOString() }),
    ).toStrictEqual(mismatch);
    // The current secret is accepted throughout.
    expect(verify(bySecret, { ...rotation, now: NOW + 60_000 }).ok).toBe(true);
  });

  it('is not accepted without previousSecretValidUntil (the platform has no window then)', () => {
    expect(verify(byPrevious, { previousSecret: PREVIOUS })).toStrictEqual(mismatch);
  });

  it('takes the instant with an offset too', () => {
    const offset = '2026-01-01T01:00:00+01:00'; // T itself: the predecessor's last instant has passed
    expect(verify(byPrevious, { previousSecret: PREVIOUS, previousSecretValidUntil: offset })).toStrictEqual(mismatch);
    const later = '2026-01-01T01:00:01.500+01:00';
    expect(verify(byPrevious, { previousSecret: PREVIOUS, previousSecretValidUntil: later }).ok).toBe(true);
  });
});

describe('verifyDelivery on hostile headers', () => {
  const good = `v1=${reference(SECRET, T, ID, BODY)}`;
  const wrong = (n: number) => `v1=${n.toString(16).padStart(64, '0')}`;

  it('tries at most 8 values of a header', () => {
    const eight = [...Array.from({ length: 7 }, (_, n) => wrong(n)), good].join(',');
    expect(verify(headersFor(eight)).ok).toBe(true);
    const nine = [...Array.from({ length: 8 }, (_, n) => wrong(n)), good].join(',');
    expect(verify(headersFor(nine))).toStrictEqual(mismatch);
  });

  it('calls a signature header of 1 MB malformed without trying its values', () => {
    const huge = `${good},${Array.from({ length: 16_000 }, (_, n) => wrong(n)).join(',')}`;
    expect(huge.length).toBeGreaterThan(1_000_000);
    expect(verify(headersFor(huge))).toStrictEqual(malformed);
  });

  it('calls a header sent 100 000 times malformed', () => {
    expect(verify({ ...headersFor(good), 'x-platform-signature': Array(100_000).fill(good) })).toStrictEqual(malformed);
    expect(verify({ ...headersFor(good), 'x-platform-event-id': Array(100_000).fill(ID) })).toStrictEqual(malformed);
  });

  it('calls an event id or a timestamp of 1 MB malformed', () => {
    expect(verify(headersFor(good, T, 'e'.repeat(1_000_000)))).toStrictEqual(malformed);
    expect(verify(headersFor(good, '1'.repeat(1_000_000)))).toStrictEqual(malformed);
  });

  it('reads only the headers named by rule 13, never inherited ones', () => {
    const inherited = Object.create(headersFor(good)) as Headers;
    expect(verify(inherited)).toStrictEqual(malformed);
  });
});

describe("verifyDelivery's own settings", () => {
  const good = headersFor(`v1=${reference(SECRET, T, ID, BODY)}`);

  it.each([
    ['secret', { secret: '' }],
    ['previousSecret', { previousSecret: '' }],
    ['previousSecretValidUntil', { previousSecret: PREVIOUS, previousSecretValidUntil: 'tomorrow' }],
    ['previousSecretValidUntil', { previousSecret: PREVIOUS, previousSecretValidUntil: '2026-01-01' }],
    ['timestampToleranceSeconds', { timestampToleranceSeconds: -1 }],
    ['timestampToleranceSeconds', { timestampToleranceSeconds: Number.NaN }],
    ['now', { now: Number.NaN }],
    ['now', { now: '2026-01-01T00:00:00Z' }],
    ['body', { body: BODY }],
    ['headers', { headers: null }],
  ])('refuses a bad %s with a typed error naming it', (field, change) => {
    const error = catchError(() => verify(good, change as Partial<Parameters<typeof verifyDelivery>[0]>));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues.map((issue) => issue.path)).toEqual([field]);
    expect((error as Error).message).not.toContain(PREVIOUS);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a thrown error');
}
