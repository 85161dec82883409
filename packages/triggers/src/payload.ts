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

export type Payload = { ok: true; records: Record<string, unknown>[]; eventType: string | null } | { ok: false };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The body as a JSON object, checked before anything walks it; undefined when it is none. */
export function readObject(body: Buffer): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  return isObject(value) && jsonProblem(value) === undefined ? value : undefined;
}

/** The event type a receipt keeps: the object's top-level `type` when it is a string, bounded. */
export function eventTypeOf(value: Record<string, unknown>): string | null {
  return typeof value.type === 'string' ? value.type.slice(0, MAX_EVENT_TYPE) : null;
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
