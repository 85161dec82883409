/**
 * Platform rule 13: a trigger delivery carries `X-Platform-Signature: v1=<hex HMAC-SHA256>`
 * over the text `v1:<X-Platform-Timestamp>:<X-Platform-Event-Id>:<raw body>`, keyed with the
 * trigger's signing secret (its text as UTF-8, prefix and all).
 */
import { hmacOf } from './hmac.js';
import {
  bodyToSign,
  eventId,
  issue,
  refuseIssues,
  seconds,
  secretText,
  tolerance,
  verifyIssues,
} from './input-checks.js';
import type { SignedHeaders } from './signed-headers.js';
import type { DeliveryVerdict } from './verdict.js';
import { verifyTimed } from './verify-timed.js';

const HEADERS: SignedHeaders = {
  signature: 'x-platform-signature',
  timestamp: 'x-platform-timestamp',
  eventId: 'x-platform-event-id',
  format: { version: 'v1', joiner: '=', separators: /[\s,]+/, encoding: 'hex', bytes: 32 },
  separator: ':',
};

/** The signature of one delivery under one secret. */
function digest(secret: string, timestamp: string, id: string, body: Uint8Array | string): Buffer {
  return hmacOf('sha256', secret, ['v1:', timestamp, ':', id, ':', body]);
}

function signAs(subject: string, input: Parameters<typeof signDelivery>[0]): string {
  refuseIssues(subject, [
    issue('secret', input.secret, secretText),
    issue('timestamp', input.timestamp, seconds),
    issue('eventId', input.eventId, eventId(':')),
    issue('body', input.body, bodyToSign),
  ]);
  return `v1=${digest(input.secret, String(input.timestamp), input.eventId, input.body).toString('hex')}`;
}

/**
 * The `X-Platform-Signature` value of a delivery (rule 13): `v1=<hex HMAC-SHA256>` over
 * `v1:<timestamp>:<eventId>:<body>`, keyed with the secret. A string body is signed as its
 * UTF-8 bytes: send exactly those. `timestamp` is whole seconds since the epoch; `eventId` is
 * 1 to 200 characters of visible ASCII without `:`. A bad field throws `InvalidInputError`
 * naming it (never quoting the secret).
 * @example signDelivery({ secret, timestamp: Math.floor(Date.now() / 1000), eventId: 'evt_1', body })
 */
export function signDelivery(input: {
  secret: string;
  /** Whole seconds since the epoch. */
  timestamp: number;
  eventId: string;
  body: Uint8Array | string;
}): string {
  return signAs('signDelivery', input);
}

/**
 * The three headers a sender adds to a delivery (rule 13), from the same input as
 * `signDelivery`: `x-platform-signature`, `x-platform-timestamp` and `x-platform-event-id`.
 */
export function deliveryHeaders(input: Parameters<typeof signDelivery>[0]): {
  'x-platform-signature': string;
  'x-platform-timestamp': string;
  'x-platform-event-id': string;
} {
  return {
    'x-platform-signature': signAs('deliveryHeaders', input),
    'x-platform-timestamp': String(input.timestamp),
    'x-platform-event-id': input.eventId,
  };
}

/**
 * Whether a delivery is genuine and on time (rule 13), from its headers as node:http gives
 * them and the raw body as read. In order: a header missing, garbled or over its bound, a
 * timestamp that is not whole seconds, or an event id that is not 1 to 200 characters of visible
 * ASCII without `:` is `malformed`; a timestamp more than `timestampToleranceSeconds` before or
 * after `now` is `outside_tolerance`; else one of the header's `v1=` values (comma or space
 * separated, other versions ignored, the first 8 tried) must be the signature under the secret,
 * or under `previousSecret` while `now` is before `previousSecretValidUntil`, compared in
 * constant time, or it is `signature_mismatch`. The caller's own fields are checked first: a bad
 * one throws `InvalidInputError` naming it.
 */
export function verifyDelivery(input: {
  /** The request's headers as node:http gives them (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body as read, before any parsing. */
  body: Uint8Array;
  secret: string;
  previousSecret?: string | undefined;
  /** ISO 8601 instant: the predecessor is valid until then (not from then on). */
  previousSecretValidUntil?: string | undefined;
  timestampToleranceSeconds: number;
  /** Milliseconds since the epoch, from the host's clock. */
  now: number;
}): DeliveryVerdict {
  refuseIssues('verifyDelivery', [
    ...verifyIssues(input, secretText),
    issue('timestampToleranceSeconds', input.timestampToleranceSeconds, tolerance),
  ]);
  return verifyTimed(HEADERS, input, input.timestampToleranceSeconds, (secret, read) =>
    digest(secret, read.timestampText, read.eventId, input.body),
  );
}
