/**
 * One verification of a timed scheme, whatever its headers and signed text: the headers read
 * (else `malformed`), the secrets in force at `now`, then the scheme's rules (`judge`).
 */
import type { VerifyInput } from './input-checks.js';
import { judge } from './judge.js';
import { secretsInForce } from './keys.js';
import { type ReadHeaders, readSignedHeaders, type SignedHeaders } from './signed-headers.js';
import { type DeliveryVerdict, refused } from './verdict.js';

/**
 * The verdict on a delivery whose caller's fields were checked. `digest` signs this delivery
 * (its raw body, and the timestamp and event id as the sender wrote them) under one secret.
 */
export function verifyTimed<Secret>(
  scheme: SignedHeaders,
  input: VerifyInput<Secret>,
  toleranceSeconds: number,
  digest: (secret: Secret, read: ReadHeaders) => Uint8Array,
): DeliveryVerdict {
  const read = readSignedHeaders(input.headers, scheme);
  if (read === undefined) return refused('malformed');
  const refusal = judge({
    timestamp: read.timestamp,
    values: read.values,
    keys: secretsInForce(input.secret, input.previousSecret, input.previousSecretValidUntil, input.now),
    digest: (secret) => digest(secret, read),
    toleranceSeconds,
    now: input.now,
  });
  return refusal === undefined ? { ok: true, eventId: read.eventId, timestamp: read.timestamp } : refused(refusal);
}
