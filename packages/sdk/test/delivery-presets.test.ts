import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSignature } from '../src/deliveries/hmac-signature.js';
import { slackSignature } from '../src/deliveries/slack.js';
import { signStandardWebhook, verifyStandardWebhook } from '../src/deliveries/standard-webhooks.js';
import { InvalidInputError } from '../src/errors.js';

/**
 * The providers' schemes, each against the test vector its provider publishes: GitHub's
 * "Validating webhook deliveries" page, the Standard Webhooks specification's example, and
 * Slack's "Verifying requests from Slack". Shopify publishes none: its value is computed here
 * with node:crypto, apart from the SDK's code.
 */

type Headers = Record<string, string | string[] | undefined>;
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const mismatch = { ok: false, reasonCode: 'signature_mismatch' };
const malformed = { ok: false, reasonCode: 'malformed' };
const outside = { ok: false, reasonCode: 'outside_tolerance' };

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a thrown error');
}

describe('Standard Webhooks', () => {
  // The specification's example (standard-webhooks/standard-webhooks, and its libraries' tests).
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const eventId = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = 1_614_265_330;
  const body = '{"test": 2432232314}';
  const signature = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
  const headers = (value = signature, ts: number | string = timestamp, id = eventId): Headers => ({
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': value,
  });
  const verify = (h: Headers, options: Partial<Parameters<typeof verifyStandardWebhook>[0]> = {}) =>
    verifyStandardWebhook({ headers: h, body: utf8(body), secret, now: timestamp * 1000, ...options });

  it("signs the specification's example as it gives it", () => {
    expect(signStandardWebhook({ secret, eventId, timestamp, body })).toBe(signature);
    // The secret without its prefix is the same key.
    expect(signStandardWebhook({ secret: secret.slice(6), eventId, timestamp, body: utf8(body) })).toBe(signature);
  });

  it("verifies the specification's example, with verifyDelivery's answer", () => {
    expect(verify(headers())).toEqual({ ok: true, eventId, timestamp });
  });

  it('accepts one good value among several, space separated, ignoring other versions', () => {
    const other = `v1,${Buffer.alloc(32).toString('base64')}`;
    expect(verify(headers(`${other} v1a,${Buffer.alloc(64).toString('base64')} ${signature}`)).ok).toBe(true);
    expect(verify(headers(`${other} ${other}`))).toStrictEqual(mismatch);
  });

  it('refuses a changed body or id, and a timestamp outside the tolerance both ways (5 minutes unless told)', () => {
    expect(verify(headers(), { body: utf8('{"test": 2432232315}') })).toStrictEqual(mismatch);
    expect(verify(headers(signature, timestamp, 'msg_other'))).toStrictEqual(mismatch);
    expect(verify(headers(), { now: (timestamp + 301) * 1000 })).toStrictEqual(outside);
    expect(verify(headers(), { now: (timestamp - 301) * 1000 })).toStrictEqual(outside);
    expect(verify(headers(), { now: (timestamp + 300) * 1000 }).ok).toBe(true);
    expect(verify(headers(), { now: (timestamp + 30) * 1000, timestampToleranceSeconds: 10 })).toStrictEqual(outside);
  });

  it('accepts the predecessor secret until previousSecretValidUntil', () => {
    const next = 'whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA==';
    const until = new Date(timestamp * 1000 + 1000).toISOString();
    expect(verify(headers(), { secret: next, previousSecret: secret, previousSecretValidUntil: until }).ok).toBe(true);
    expect(
      verify(headers(), {
        secret: next,
        previousSecret: secret,
        previousSecretValidUntil: until,
        now: timestamp * 1000 + 1000,
      }),
    ).toStrictEqual(mismatch);
  });

  it.each<[string, Headers]>([
    ['no webhook-id', { 'webhook-timestamp': String(timestamp), 'webhook-signature': signature }],
    ['an id holding the separator', headers(signature, timestamp, 'msg.1')],
    ['a timestamp that is not an integer', headers(signature, `${timestamp}.0`)],
    ['a value without its version', headers('g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')],
    ['a v1 value that is not base64 of 32 bytes', headers('v1,g0hM9SsE')],
    ['a signature header of 1 MB', headers(`${signature} ${'v1,AAAA '.repeat(131_072)}`)],
  ])('calls %s malformed', (_, h) => {
    expect(verify(h)).toStrictEqual(malformed);
  });

  it('refuses a secret that is not base64 with a typed error that does not quote it', () => {
    const bad = 'whsec_not base64 at all!';
    for (const run of [
      () => signStandardWebhook({ secret: bad, eventId, timestamp, body }),
      () => verify(headers(), { secret: bad }),
    ]) {
      const error = catchError(run);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.message).toMatch(/secret/);
      expect(error.message).not.toContain('not base64 at all');
    }
    expect(catchError(() => signStandardWebhook({ secret, eventId: 'a.b', timestamp, body })).message).toMatch(
      /eventId/,
    );
  });
});

describe('hmacSignature', () => {
  it("matches GitHub's documented example (x-hub-signature-256: sha256=<hex>)", () => {
    const github = hmacSignature({ header: 'X-Hub-Signature-256', prefix: 'sha256=', encoding: 'hex' });
    const secret = "It's a Secret to Everybody";
    const value = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(github.sign('Hello, World!', secret)).toBe(value);
    expect(github.verify({ headers: { 'x-hub-signature-256': value }, body: utf8('Hello, World!'), secret })).toBe(
      true,
    );
    expect(github.verify({ headers: { 'x-hub-signature-256': value }, body: utf8('Hello, World?'), secret })).toBe(
      false,
    );
    expect(github.verify({ headers: { 'x-hub-signature-256': value }, body: utf8('Hello, World!'), secret: 'x' })).toBe(
      false,
    );
  });

  it('signs with SHA-1 when told (the older x-hub-signature)', () => {
    const sha1 = hmacSignature({ header: 'x-hub-signature', prefix: 'sha1=', encoding: 'hex', algorithm: 'sha1' });
    const expected = `sha1=${createHmac('sha1', 'key').update('body').digest('hex')}`;
    expect(sha1.sign(utf8('body'), 'key')).toBe(expected);
    expect(sha1.verify({ headers: { 'x-hub-signature': expected }, body: utf8('body'), secret: 'key' })).toBe(true);
  });

  it('verifies base64 without a prefix (x-shopify-hmac-sha256: <base64>)', () => {
    const shopify = hmacSignature({ header: 'x-shopify-hmac-sha256', encoding: 'base64' });
    const body = '{"id":820982911946154508,"email":"jon@example.com"}';
    const expected = createHmac('sha256', 'shpss_0123456789abcdef').update(body).digest('base64');
    expect(shopify.sign(body, 'shpss_0123456789abcdef')).toBe(expected);
    const headers = { 'x-shopify-hmac-sha256': expected };
    expect(shopify.verify({ headers, body: utf8(body), secret: 'shpss_0123456789abcdef' })).toBe(true);
  });

  it.each([
    ['no header', {}],
    ['another prefix', { 'x-hub-signature-256': `sha1=${'0'.repeat(64)}` }],
    ['a short value', { 'x-hub-signature-256': 'sha256=757107ea' }],
    ['a value that is not hex', { 'x-hub-signature-256': `sha256=${'z'.repeat(64)}` }],
    ['a header sent twice', { 'x-hub-signature-256': ['sha256=00', 'sha256=11'] }],
    ['a header of 1 MB', { 'x-hub-signature-256': `sha256=${'0'.repeat(1_000_000)}` }],
  ])('answers false to %s', (_, headers) => {
    const github = hmacSignature({ header: 'x-hub-signature-256', prefix: 'sha256=', encoding: 'hex' });
    expect(github.verify({ headers, body: utf8('Hello, World!'), secret: "It's a Secret to Everybody" })).toBe(false);
  });

  it.each([
    ['header', { header: 'x signature' }],
    ['encoding', { encoding: 'base32' }],
    ['algorithm', { algorithm: 'md5' }],
    ['prefix', { prefix: 'sha256=\n' }],
  ])('refuses a bad %s with a typed error naming it', (field, change) => {
    const options = { header: 'x-signature', prefix: '', encoding: 'hex', ...change } as Parameters<
      typeof hmacSignature
    >[0];
    const error = catchError(() => hmacSignature(options));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues.map((issue) => issue.path)).toEqual([field]);
  });

  it('refuses an empty secret, a body that is not the raw bytes and headers that are none, naming them', () => {
    const github = hmacSignature({ header: 'x-hub-signature-256', prefix: 'sha256=', encoding: 'hex' });
    expect(catchError(() => github.sign('body', '')).message).toMatch(/secret/);
    const body = 'not bytes' as unknown as Uint8Array;
    expect(catchError(() => github.verify({ headers: {}, body, secret: 'key' })).message).toMatch(/body/);
    const headers = null as unknown as Record<string, string>;
    expect(catchError(() => github.verify({ headers, body: utf8('body'), secret: 'key' })).message).toMatch(/headers/);
  });
});

describe('slackSignature', () => {
  // Slack's own example, from "Verifying requests from Slack".
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const timestamp = 1_531_420_618;
  const body =
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
    '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com' +
    '%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
  const signature = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
  const headers = { 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestamp) };
  const slack = slackSignature();

  it("signs and verifies Slack's example", () => {
    expect(slack.sign({ secret, timestamp, body })).toEqual(headers);
    expect(slack.verify({ headers, body: utf8(body), secret, now: timestamp * 1000 })).toEqual({ ok: true, timestamp });
  });

  it('refuses a changed body and a timestamp outside the tolerance both ways (5 minutes unless told)', () => {
    expect(slack.verify({ headers, body: utf8(`${body}&x=1`), secret, now: timestamp * 1000 })).toStrictEqual(mismatch);
    expect(slack.verify({ headers, body: utf8(body), secret, now: (timestamp + 301) * 1000 })).toStrictEqual(outside);
    expect(slack.verify({ headers, body: utf8(body), secret, now: (timestamp - 301) * 1000 })).toStrictEqual(outside);
    const strict = slackSignature({ timestampToleranceSeconds: 60 });
    expect(strict.verify({ headers, body: utf8(body), secret, now: (timestamp + 61) * 1000 })).toStrictEqual(outside);
    expect(strict.verify({ headers, body: utf8(body), secret, now: (timestamp + 60) * 1000 }).ok).toBe(true);
  });

  it('calls a missing timestamp or a garbled signature malformed', () => {
    const now = timestamp * 1000;
    const noTimestamp = { 'x-slack-signature': signature };
    expect(slack.verify({ headers: noTimestamp, body: utf8(body), secret, now })).toStrictEqual(malformed);
    const garbled = { ...headers, 'x-slack-signature': 'v0=zz' };
    expect(slack.verify({ headers: garbled, body: utf8(body), secret, now })).toStrictEqual(malformed);
  });

  it('refuses a bad tolerance with a typed error naming it', () => {
    const error = catchError(() => slackSignature({ timestampToleranceSeconds: -5 }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toMatch(/timestampToleranceSeconds/);
  });
});
