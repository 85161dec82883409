/**
 * Which secrets a delivery may be signed with at an instant: the secret, and its predecessor
 * until `previousSecretValidUntil` (not from that instant on). A predecessor without that instant
 * has no window, as the platform's Trigger with `previousSecretValidUntil: null`.
 */

/** The secrets in force at `now` (ms since the epoch), the current one first. */
export function secretsInForce<Key>(
  secret: Key,
  previousSecret: Key | undefined,
  previousSecretValidUntil: string | undefined,
  now: number,
): Key[] {
  if (previousSecret === undefined || previousSecretValidUntil === undefined) return [secret];
  return now < Date.parse(previousSecretValidUntil) ? [secret, previousSecret] : [secret];
}
