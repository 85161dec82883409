import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Trigger } from '@plugboard/sdk';
import type { WebhookVerdict } from '@plugboard/sdk/host';
import type { Judged } from './delivery-judge.js';
import { eventTypeOf, readObject } from './payload.js';

/**
 * A provider webhook's delivery judged by the connector's declaration: its signature under the
 * kept secret with the declared scheme, its event id (the scheme's, else the declared
 * `eventIdHeader`, else the SHA-256 of the body), then its records from the connector's
 * `records`, each checked against the trigger's entity. A signature check that throws, and
 * records that throw or do not match, are refusals: anything a provider sends is hostile.
 */

const EVENT_ID = /^[\x21-\x7e]{1,200}$/;

function verdictOf(trigger: Trigger, headers: IncomingHttpHeaders, body: Buffer, secret: string, now: number) {
  try {
    const { signature } = trigger;
    const verdict: WebhookVerdict =
      typeof signature === 'function'
        ? signature(body, headers, secret)
        : signature.verify({ headers, body, secret, now });
    if (typeof verdict === 'boolean') return verdict ? { ok: true as const } : undefined;
    return verdict;
  } catch {
    return undefined;
  }
}

/** The event id deliveries are deduplicated by, or undefined when the declared header does not hold one. */
function eventIdOf(trigger: Trigger, headers: IncomingHttpHeaders, body: Buffer, signed: string | undefined) {
  if (signed !== undefined) return signed;
  if (trigger.eventIdHeader === undefined) return `sha256:${createHash('sha256').update(body).digest('hex')}`;
  const value = headers[trigger.eventIdHeader.toLowerCase()];
  return typeof value === 'string' && EVENT_ID.test(value) ? value : undefined;
}

/** The records the connector makes of the body, each checked; undefined when any is refused. */
function recordsOf(trigger: Trigger, headers: IncomingHttpHeaders, body: Record<string, unknown>) {
  let made: unknown;
  try {
    made = trigger.records({ body, headers });
  } catch {
    return undefined;
  }
  if (!Array.isArray(made)) return undefined;
  const records: Record<string, unknown>[] = [];
  for (const record of made) {
    const parsed = trigger.entity.safeParse(record);
    if (!parsed.success || typeof parsed.data !== 'object' || parsed.data === null) return undefined;
    records.push(parsed.data as Record<string, unknown>);
  }
  return records;
}

/** Judges a delivery of a webhook trigger; a trigger not subscribed yet has no secret: `signature_mismatch`. */
export function judgeWebhook(
  trigger: Trigger,
  secret: string | undefined,
  headers: IncomingHttpHeaders,
  body: Buffer,
  now: number,
): Judged {
  if (secret === undefined) return { ok: false, reasonCode: 'signature_mismatch' };
  const verdict = verdictOf(trigger, headers, body, secret, now);
  if (!verdict) return { ok: false, reasonCode: 'signature_mismatch' };
  if (!verdict.ok) return verdict;
  const eventId = eventIdOf(trigger, headers, body, 'eventId' in verdict ? verdict.eventId : undefined);
  const object = readObject(body);
  const records = object && recordsOf(trigger, headers, object);
  if (eventId === undefined || !object || !records) return { ok: false, reasonCode: 'malformed' };
  return { ok: true, eventId, payload: { ok: true, records, eventType: eventTypeOf(object) } };
}
