import { type ConnectionCredential, credentialSecrets } from '../credentials.js';
import { Redactor } from '../secrets.js';

/** How many credentials' redactors are kept for the runs that come next. */
const REDACTORS_KEPT = 64;
const redactors = new Map<string, Redactor>();

/**
 * The redactor of a run with this credential's parts (`credentialSecrets`) and these further secrets: the compiled
 * forms of every secret. Runs with the same parts and secrets share one (nothing adds to a run's
 * redactor once it starts but the recent tokens of its connection), so a run with a known
 * credential builds none. A signer's run (`shared` false) adds each signature: its own.
 */
export function redactorFor(
  credential: ConnectionCredential | undefined,
  secrets: readonly string[] | undefined,
  shared: boolean,
): Redactor {
  const further = secrets !== undefined && secrets.length > 0;
  // A key alone (the common case) is its own key: a kept redactor is found without listing the parts.
  if (shared && !further && typeof credential === 'string' && credential !== '') {
    const kept = redactors.get(credential);
    if (kept) return kept;
  }
  const parts = credentialSecrets(credential);
  // One part is the common case; several, or further secrets, are keyed so that no list can pass for another.
  const key = further
    ? `\u0001${JSON.stringify([parts, secrets])}`
    : parts.length === 1
      ? parts[0]!
      : `\u0000${JSON.stringify(parts)}`;
  let redactor = shared ? redactors.get(key) : undefined;
  if (redactor) return redactor;
  redactor = new Redactor(secrets);
  for (const part of parts) redactor.add(part);
  if (!shared) return redactor;
  if (redactors.size >= REDACTORS_KEPT) redactors.delete(redactors.keys().next().value!);
  redactors.set(key, redactor);
  return redactor;
}
