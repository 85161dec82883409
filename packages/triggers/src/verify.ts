import type { IncomingHttpHeaders } from 'node:http';
import { verifyDelivery } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import type { TriggerSecrets } from './secrets.js';

/**
 * Rule 13 for one trigger, through the SDK's `verifyDelivery`: the signature under the trigger's
 * secret, or its predecessor until `previousSecretValidUntil`, and the timestamp within
 * `timestampToleranceSeconds` of the receiver's clock, either way.
 */

export type Verdict =
  | { ok: true; eventId: string }
  | { ok: false; reasonCode: 'signature_mismatch' | 'outside_tolerance' | 'malformed' };

export function verifyFor(
  trigger: TriggerSettings,
  secrets: TriggerSecrets,
  headers: IncomingHttpHeaders,
  body: Buffer,
  now: number,
): Verdict {
  const verdict = verifyDelivery({
    headers,
    body,
    secret: secrets.secret,
    ...(secrets.previousSecret !== undefined && trigger.previousSecretValidUntil !== null
      ? { previousSecret: secrets.previousSecret, previousSecretValidUntil: trigger.previousSecretValidUntil }
      : {}),
    timestampToleranceSeconds: trigger.timestampToleranceSeconds,
    now,
  });
  return verdict.ok ? { ok: true, eventId: verdict.eventId } : { ok: false, reasonCode: verdict.reasonCode };
}
