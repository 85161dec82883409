/**
 * What a verification answers. A refusal says only which rule the delivery broke, never which
 * part of a signature was wrong: a forger learns nothing from it.
 */

/**
 * Why a delivery was refused: `malformed` (a header missing, garbled or over its bound, a
 * timestamp that is not whole seconds, an event id that is not one), `outside_tolerance` (the
 * timestamp is further from now than the tolerance, either way) or `signature_mismatch` (no value
 * of the header is the signature of this delivery under a secret in force).
 */
export type DeliveryRefusal = 'signature_mismatch' | 'outside_tolerance' | 'malformed';

/**
 * The answer of `verifyDelivery` and `verifyStandardWebhook`: the delivery's event id and
 * timestamp (seconds since the epoch) when it is genuine and on time, else why it was refused.
 */
export type DeliveryVerdict =
  | { ok: true; eventId: string; timestamp: number }
  | { ok: false; reasonCode: DeliveryRefusal };

/** A refusal, as every verification answers it. */
export function refused(reasonCode: DeliveryRefusal): { ok: false; reasonCode: DeliveryRefusal } {
  return { ok: false, reasonCode };
}
