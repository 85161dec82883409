/**
 * Standard Webhooks (https://www.standardwebhooks.com): headers `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` (space-separated `v1,<base64 HMAC-SHA256>`
 * values) over `<id>.<timestamp>.<body>`, keyed with the bytes of a `whsec_<base64>` secret.
 */
import { hmacOf } from './hmac.js';
import { bodyToSign, eventId, issue, refuseIssues, seconds, tolerance, verifyIssues } from './input-checks.js';
import type { SignedHeaders } from './signed-headers.js';
import type { DeliveryRefusal, DeliveryVerdict } from './verdict.js';
import { verifyTimed } from './verify-timed.js';

const HEADERS: SignedHeaders = {
  signature: 'webhook-signature',
  timestamp: 'webhook-timestamp',
  eventId: 'webhook-id',
  // A header sent twice comes joined with ', ': the comma is no part of a base64 value.
  format: { version: 'v1', joiner: ',', separators: /,?\s+/, encoding: 'base64', bytes: 32 },
  separator: '.',
};

/** The tolerance the specification suggests, when the caller names none. */
const DEFAULT_TOLERANCE_SECONDS = 300;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key a secret stands for: the bytes of its base64, after an optional `whsec_`; undefined when it is none. */
function keyOf(secret: unknown): Buffer | undefined {
  if (typeof secret !== 'string') return undefined;
  const text = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}

const secretKey = (value: unknown) =>
  keyOf(value) === undefined ? 'must be whsec_ followed by base64 (or the base64 alone)' : undefined;

function digest(key: Uint8Array, id: string, timestamp: string, body: Uint8Array | string): Buffer {
  return hmacOf('sha256', key, [id, '.', timestamp, '.', body]);
}

/**
 * The `webhook-signature` value of a message under the Standard Webhooks scheme: `v1,<base64>`.
 * `secret` is `whsec_<base64>` (or the base64 alone), `timestamp` whole seconds, `eventId` the
 * `webhook-id` (visible ASCII without `.`); a string body is signed as its UTF-8 bytes. A bad
 * field throws `InvalidInputError` naming it.
 */
export function signStandardWebhook(input: {
  secret: string;
  eventId: string;
  /** Whole seconds since the epoch. */
  timestamp: number;
  body: Uint8Array | string;
}): string {
  refuseIssues('signStandardWebhook', [
    issue('secret', input.secret, secretKey),
    issue('timestamp', input.timestamp, seconds),
    issue('eventId', input.eventId, eventId('.')),
    issue('body', input.body, bodyToSign),
  ]);
  return `v1,${digest(keyOf(input.secret)!, input.eventId, String(input.timestamp), input.body).toString('base64')}`;
}

/**
 * Whether a Standard Webhooks message is genuine and on time, answered as `verifyDelivery`
 * answers: `malformed` (a header missing, garbled or over its bound, an id holding `.`),
 * `outside_tolerance` (the timestamp more than `timestampToleranceSeconds`, 300 unless told,
 * before or after `now`), or `signature_mismatch` (none of the first 8 `v1` values is the
 * signature under the secret, or the predecessor until `previousSecretValidUntil`).
 */
export function verifyStandardWebhook(input: {
  /** The request's headers as node:http gives them (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body as read, before any parsing. */
  body: Uint8Array;
  /** `whsec_<base64>`, or the base64 alone. */
  secret: string;
  previousSecret?: string | undefined;
  /** ISO 8601 instant: the predecessor is valid until then (not from then on). */
  previousSecretValidUntil?: string | undefined;
  /** 300 unless told. */
  timestampToleranceSeconds?: number | undefined;
  /** Milliseconds since the epoch, from the host's clock. */
  now: number;
}): DeliveryVerdict {
  const toleranceSeconds = input.timestampToleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  refuseIssues('verifyStandardWebhook', [
    ...verifyIssues(input, secretKey),
    issue('timestampToleranceSeconds', toleranceSeconds, tolerance),
  ]);
  return verifyTimed(HEADERS, input, toleranceSeconds, (secret, read) =>
    digest(keyOf(secret)!, read.eventId, read.timestampText, input.body),
  );
}

/**
 * The Standard Webhooks scheme as a preset, like `hmacSignature` and `slackSignature`: `sign`
 * gives the `webhook-signature` value (as `signStandardWebhook`), `verify` answers as
 * `verifyStandardWebhook` with the tolerance given here (300 seconds unless told). A trigger
 * declares it as its `signature`; the verdict's event id is the `webhook-id`.
 * @example signature: standardWebhookSignature()
 */
export function standardWebhookSignature(options: { timestampToleranceSeconds?: number | undefined } = {}): {
  sign(input: { secret: string; eventId: string; timestamp: number; body: Uint8Array | string }): string;
  verify(input: {
    headers: Record<string, string | string[] | undefined>;
    body: Uint8Array;
    secret: string;
    /** Milliseconds since the epoch, from the host's clock. */
    now: number;
  }): { ok: true; eventId: string; timestamp: number } | { ok: false; reasonCode: DeliveryRefusal };
} {
  const timestampToleranceSeconds = options.timestampToleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  refuseIssues('standardWebhookSignature', [issue('timestampToleranceSeconds', timestampToleranceSeconds, tolerance)]);
  return {
    sign: signStandardWebhook,
    verify: (input) => verifyStandardWebhook({ ...input, timestampToleranceSeconds }),
  };
}
