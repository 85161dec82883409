import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '@plugboard/sdk/host';
import { type Answer, REASON_STATUS, type ReasonCode } from './answer.js';
import { declaredTooLarge, readBody } from './body.js';
import { DELIVERY_PATH, isPublicId, type TriggerSettings } from './config.js';
import type { Judged, ServedTrigger } from './delivery-judge.js';
import type { AcceptedDelivery, EventStore } from './event-store.js';
import { keptEventType } from './payload.js';
import type { ReceiptLog, TriggerDelivery } from './receipts.js';

/**
 * One delivery, checked in the platform's order before anything else happens: the trigger
 * (`unknown_trigger`), its status (`disabled`), its rate (`rate_limited`), its size while reading
 * (`too_large`), the signature and its timestamp (`signature_mismatch`, `outside_tolerance`,
 * `malformed`), the body (`malformed`), then its event id (`duplicate`). Each request to a known
 * trigger leaves a receipt, on disk before the answer goes (but refusals before its rate window
 * lets it in, past the trigger's rate: `early-refusals.ts`); an accepted one is kept, with its
 * records, before it is answered and before its run starts. Its receipt is written while its claim
 * is (the outcome is known before the claim is durable), and stands only if the claim does.
 */

export type { ServedTrigger };

export interface DeliveryContext {
  /** By publicId. */
  triggers: ReadonlyMap<string, ServedTrigger>;
  clock: Clock;
  events: EventStore;
  receipts: ReceiptLog;
  /** Called once an accepted delivery is kept (its receipt written, or failed, meanwhile), before its answer. */
  accepted(delivery: AcceptedDelivery, trigger: TriggerSettings): void;
  /** Whether accepted deliveries of this trigger start runs. */
  startsRuns(trigger: TriggerSettings): boolean;
}

const WELL_FORMED_EVENT_ID = /^[\x21-\x7e]{1,200}$/;

const refusal = (code: ReasonCode, deliveryId?: string): Answer => ({
  status: REASON_STATUS[code],
  result: { accepted: false, ...(deliveryId ? { deliveryId } : {}), code },
});

function publicIdOf(url: string | undefined): string | undefined {
  const path = (url ?? '').split('?', 1)[0]!;
  if (!path.startsWith(DELIVERY_PATH)) return undefined;
  const id = path.slice(DELIVERY_PATH.length);
  return isPublicId(id) ? id : undefined;
}

/** What the sender named the event, when it is well formed, with the trigger's secrets hidden. */
function claimedEventId(request: IncomingMessage, served: ServedTrigger): string | null {
  const header = request.headers[served.eventIdHeader];
  return typeof header === 'string' && WELL_FORMED_EVENT_ID.test(header)
    ? served.redactor().redactString(header)
    : null;
}

/** The receipt of a request to a known trigger, before anything of it is judged. */
function newReceipt(context: DeliveryContext, served: ServedTrigger, request: IncomingMessage): TriggerDelivery {
  return {
    deliveryId: `dlv_${randomUUID()}`,
    triggerId: served.settings.triggerId,
    receivedAt: new Date(context.clock.now()).toISOString(),
    status: 'refused',
    reasonCode: null,
    httpStatus: null,
    eventId: claimedEventId(request, served),
    eventType: null,
    payloadSha256: null,
    sizeBytes: null,
    recordCount: null,
    executionId: null,
  };
}

/** A delivery that passed every check: its signed event id, its body's digest and what it carries. */
type Verified = Extract<Judged, { ok: true }> & { sha256: string };

/** Keeps a verified delivery unless its event was accepted before, hands it on, records it; gives the answer. */
async function keep(
  context: DeliveryContext,
  served: ServedTrigger,
  request: IncomingMessage,
  receipt: TriggerDelivery,
  verified: Verified,
): Promise<Answer> {
  const { settings } = served;
  const redactor = served.redactor();
  // The receipt redacted the header already: the signed id is that header's value but for a provider's own.
  const header = request.headers[served.eventIdHeader];
  const eventId =
    header === verified.eventId && receipt.eventId !== null ? receipt.eventId : redactor.redactString(verified.eventId);
  const { eventType, records } = verified.payload;
  const delivery: AcceptedDelivery = {
    triggerId: settings.triggerId,
    eventId,
    deliveryId: receipt.deliveryId,
    executionId: context.startsRuns(settings) ? `exe_${randomUUID()}` : null,
    receivedAt: receipt.receivedAt,
    records: redactor.redactValues(records),
  };
  const claim = await context.events.claim(delivery, verified.eventId, delivery.executionId !== null);
  const first = claim.claimed ? delivery : claim.first;
  const duplicate = !claim.claimed;
  const durable = claim.claimed ? claim.durable : undefined;
  // Written while the claim is: one flush to wait for, and cut off if the claim's write fails.
  const stored = context.receipts.append(
    {
      ...receipt,
      status: duplicate ? 'duplicate' : 'accepted',
      reasonCode: duplicate ? 'duplicate' : null,
      httpStatus: 200,
      eventId,
      eventType: keptEventType(eventType, (text) => redactor.redactString(text)),
      recordCount: records.length,
      executionId: first.executionId,
    },
    durable,
  );
  const [kept, noted] = await Promise.allSettled([durable, stored]);
  if (kept.status === 'rejected') throw kept.reason;
  // Kept: its run starts now, whatever became of the receipt and becomes of the answer.
  if (!duplicate) context.accepted(delivery, settings);
  if (noted.status === 'rejected') throw noted.reason;
  return {
    status: 200,
    result: {
      accepted: true,
      deliveryId: first.deliveryId,
      executionId: first.executionId,
      payloadSha256: verified.sha256,
      duplicate,
      ...(duplicate ? { code: 'duplicate' } : {}),
    },
  };
}

/** The trigger a request was posted to, when this receiver serves it. */
export function servedFor(context: DeliveryContext, request: IncomingMessage): ServedTrigger | undefined {
  return context.triggers.get(publicIdOf(request.url) ?? '');
}

/**
 * Whether a sender that asks before sending its body (`Expect: 100-continue`) is asked for it:
 * only for a POST to an active trigger this receiver serves, of a declared size within its limit.
 * Any other is answered its refusal without the body ever being invited.
 */
export function invitesBody(context: DeliveryContext, request: IncomingMessage): boolean {
  const served = request.method === 'POST' ? servedFor(context, request) : undefined;
  return (
    served !== undefined &&
    served.settings.status === 'active' &&
    !declaredTooLarge(request, served.settings.maxBodyBytes)
  );
}

/** The answer to a request, once everything it needs is kept; undefined when its sender went away first. */
export async function receiveDelivery(context: DeliveryContext, request: IncomingMessage): Promise<Answer | undefined> {
  if (request.method !== 'POST') return { ...refusal('malformed'), status: 405, headers: { allow: 'POST' } };
  const served = servedFor(context, request);
  if (!served) return refusal('unknown_trigger');
  const { settings } = served;
  const receipt = newReceipt(context, served, request);
  const refuse = async (code: ReasonCode, headers?: Record<string, string>, recorded = true) => {
    const answer = { ...refusal(code, recorded ? receipt.deliveryId : undefined), ...(headers ? { headers } : {}) };
    if (recorded) await context.receipts.append({ ...receipt, reasonCode: code, httpStatus: answer.status });
    return answer;
  };
  if (settings.status !== 'active') return refuse('disabled', undefined, served.earlyRefusals.recorded());
  const rate = served.rate.admit();
  if (!rate.allowed)
    return refuse('rate_limited', { 'retry-after': String(rate.retryAfterSeconds) }, served.earlyRefusals.recorded());
  if (declaredTooLarge(request, settings.maxBodyBytes)) return refuse('too_large');
  const read = await readBody(request, settings.maxBodyBytes);
  if (read.kind === 'gone') return undefined;
  receipt.sizeBytes = read.kind === 'read' ? read.body.length : read.bytesRead;
  if (read.kind === 'too_large') return refuse('too_large');
  receipt.payloadSha256 = read.sha256;
  const judged = served.judge(request.headers, read.body, context.clock.now());
  if (!judged.ok) return refuse(judged.reasonCode);
  return keep(context, served, request, receipt, { ...judged, sha256: read.sha256 });
}
