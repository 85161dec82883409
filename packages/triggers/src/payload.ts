import { jsonProblem } from '@plugboard/sdk/host';

/**
 * What a verified delivery carries: its body must be a JSON object. Its records are the
 * object's `records` array when it has one (each record an object), else the object itself as
 * one record; its event type is its top-level `type` when that is a string. Anything else is
 * `malformed`. The body is at most the trigger's `maxBodyBytes`, and nesting and prototype keys
 * are refused before anything walks the value.
 */

/** The longest event type a receipt keeps. */
const MAX_EVENT_TYPE = 200;

/** Bytes that are not UTF-8 are `malformed`, not replaced: the run's input is what was signed. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type Payload = { ok: true; records: Record<string, unknown>[]; eventType: string | null } | { ok: false };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The body as a JSON object, checked before anything walks it; undefined when it is none. */
export function readObject(body: Buffer): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(UTF8.decode(body));
  } catch {
    return undefined;
  }
  return isObject(value) && jsonProblem(value) === undefined ? value : undefined;
}

/** The event type: the object's top-level `type` when it is a string, whole (`keptEventType` bounds it). */
export function eventTypeOf(value: Record<string, unknown>): string | null {
  return typeof value.type === 'string' ? value.type : null;
}

/**
 * The event type a receipt keeps: the trigger's secrets hidden first, then bounded, so a secret
 * the cut would split is still found whole.
 */
export function keptEventType(eventType: string | null, redact: (text: string) => string): string | null {
  return eventType === null ? null : redact(eventType).slice(0, MAX_EVENT_TYPE);
}

export function readPayload(body: Buffer): Payload {
  const value = readObject(body);
  if (!value) return { ok: false };
  const listed = value.records;
  if (listed !== undefined && !(Array.isArray(listed) && listed.every(isObject))) return { ok: false };
  return {
    ok: true,
    records: (listed as Record<string, unknown>[] | undefined) ?? [value],
    eventType: eventTypeOf(value),
  };
}
