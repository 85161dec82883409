/**
 * The two rules every timed scheme shares once its headers are read: the timestamp within the
 * tolerance both ways, then one of the sender's values the signature under a secret in force.
 * The tolerance is judged first: a stale or early delivery costs no HMAC over its body.
 */
import { matchesAny } from './hmac.js';
import type { DeliveryRefusal } from './verdict.js';

/** Whether `timestamp` (seconds) is at most `toleranceSeconds` from `now` (ms), before or after it. */
export function withinTolerance(timestamp: number, toleranceSeconds: number, now: number): boolean {
  return Math.abs(now - timestamp * 1000) <= toleranceSeconds * 1000;
}

/** What a timed scheme's rules say of a delivery whose headers were read. */
export interface Judged<Key> {
  timestamp: number;
  /** The sender's values, decoded. */
  values: readonly Uint8Array[];
  keys: readonly Key[];
  /** The signature of this delivery under one key. */
  digest(key: Key): Uint8Array;
  toleranceSeconds: number;
  now: number;
}

/** The refusal the delivery earns, or undefined when it is on time and signed. */
export function judge<Key>(delivery: Judged<Key>): DeliveryRefusal | undefined {
  if (!withinTolerance(delivery.timestamp, delivery.toleranceSeconds, delivery.now)) return 'outside_tolerance';
  if (delivery.values.length === 0) return 'signature_mismatch';
  let signed = false;
  for (const key of delivery.keys) if (matchesAny(delivery.digest(key), delivery.values)) signed = true;
  return signed ? undefined : 'signature_mismatch';
}
