/**
 * Slack's request signature: `x-slack-signature: v0=<hex HMAC-SHA256>` over
 * `v0:<x-slack-request-timestamp>:<raw body>`, keyed with the app's signing secret.
 */
import { hmacOf } from './hmac.js';
import { bodyToSign, issue, refuseIssues, seconds, secretText, tolerance, verifyIssues } from './input-checks.js';
import type { SignedHeaders } from './signed-headers.js';
import type { DeliveryRefusal } from './verdict.js';
import { verifyTimed } from './verify-timed.js';

const HEADERS: SignedHeaders = {
  signature: 'x-slack-signature',
  timestamp: 'x-slack-request-timestamp',
  format: { version: 'v0', joiner: '=', separators: /[\s,]+/, encoding: 'hex', bytes: 32 },
  separator: ':',
};

/** Slack's own advice: refuse a request more than five minutes from now. */
const DEFAULT_TOLERANCE_SECONDS = 300;

function digest(secret: string, timestamp: string, body: Uint8Array | string): Buffer {
  return hmacOf('sha256', secret, ['v0:', timestamp, ':', body]);
}

/**
 * Slack's signing scheme, with a tolerance of `timestampToleranceSeconds` (300 unless told)
 * both ways. `sign` gives the two headers Slack sends; `verify` answers as `verifyDelivery`
 * does, without an event id (Slack's is in the body): `malformed` for a header missing or
 * garbled, `outside_tolerance`, or `signature_mismatch` unless a `v0=` value (the first 8
 * tried) is the signature under `secret`. Bad fields throw `InvalidInputError` naming them.
 */
export function slackSignature(options: { timestampToleranceSeconds?: number | undefined } = {}): {
  sign(input: { secret: string; timestamp: number; body: Uint8Array | string }): {
    'x-slack-signature': string;
    'x-slack-request-timestamp': string;
  };
  verify(input: {
    headers: Record<string, string | string[] | undefined>;
    body: Uint8Array;
    secret: string;
    /** Milliseconds since the epoch, from the host's clock. */
    now: number;
  }): { ok: true; timestamp: number } | { ok: false; reasonCode: DeliveryRefusal };
} {
  const toleranceSeconds = options.timestampToleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  refuseIssues('slackSignature', [issue('timestampToleranceSeconds', toleranceSeconds, tolerance)]);
  return {
    sign({ secret, timestamp, body }) {
      refuseIssues('slackSignature sign', [
        issue('secret', secret, secretText),
        issue('timestamp', timestamp, seconds),
        issue('body', body, bodyToSign),
      ]);
      return {
        'x-slack-signature': `v0=${digest(secret, String(timestamp), body).toString('hex')}`,
        'x-slack-request-timestamp': String(timestamp),
      };
    },
    verify(input) {
      refuseIssues('slackSignature verify', verifyIssues(input, secretText));
      const verdict = verifyTimed(HEADERS, input, toleranceSeconds, (secret, read) =>
        digest(secret, read.timestampText, input.body),
      );
      return verdict.ok ? { ok: true, timestamp: verdict.timestamp } : verdict;
    },
  };
}
