import type { IncomingHttpHeaders } from 'node:http';
import type { Redactor } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import type { EarlyRefusals } from './early-refusals.js';
import { type Payload, readPayload } from './payload.js';
import type { DeliveryRate } from './rate.js';
import type { TriggerSecrets } from './secrets.js';
import { verifyFor } from './verify.js';

/**
 * What a served trigger judges of a delivery read whole: its signature and timestamp, its event
 * id and what it carries. A trigger signed as rule 13 says is judged by `verifyFor` and the
 * platform's payload; a provider webhook by its connector's declaration (`judgeWebhook`).
 */

export type Judged =
  | { ok: true; eventId: string; payload: Extract<Payload, { ok: true }> }
  | { ok: false; reasonCode: 'signature_mismatch' | 'outside_tolerance' | 'malformed' };

export interface ServedTrigger {
  settings: TriggerSettings;
  rate: DeliveryRate;
  /** Whether a request refused `disabled` or `rate_limited` leaves a receipt. */
  earlyRefusals: EarlyRefusals;
  /** The header a sender names its event in, read for the receipt before anything is judged. */
  eventIdHeader: string;
  /** Hides the trigger's secrets, in any of their forms, from what a receipt or a log keeps. */
  redactor(): Redactor;
  judge(headers: IncomingHttpHeaders, body: Buffer, now: number): Judged;
}

/** Rule 13: the signature under the trigger's secrets, then the platform's payload. */
export function platformJudge(settings: TriggerSettings, secrets: TriggerSecrets): ServedTrigger['judge'] {
  return (headers, body, now) => {
    const verdict = verifyFor(settings, secrets, headers, body, now);
    if (!verdict.ok) return verdict;
    const payload = readPayload(body);
    return payload.ok ? { ok: true, eventId: verdict.eventId, payload } : { ok: false, reasonCode: 'malformed' };
  };
}
