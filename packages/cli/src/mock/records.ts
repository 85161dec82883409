import { createHash } from 'node:crypto';
import type { Schema } from '../openapi-document.js';
import { isNumber, typeOf } from '../schema-shape.js';

/**
 * The records a list operation of the stand-in serves, made from the schema of its record
 * type: the same on every start for a seed, each valid against the schema (required fields,
 * enums, formats, bounds), its key always there and unique, and every instant in it
 * (date-time, date and unix time fields) the record's own instant. Instants are 1 s to 1 h apart, whole seconds, the
 * newest at the start of the day the stand-in started (so a list read from some days back finds
 * them), and about one record in ten shares the instant of the one before: as providers that
 * write timestamps to the second do, which is what an incremental read's tie-breaker is for. A record is made from its number and instant alone, so only the
 * instants are held and a record is made when a page serves it.
 */

/** How deep a record's objects go; a recursive schema stops there with only its required fields. */
const MAX_DEPTH = 4;
/** Properties that point to a further page: never part of a record. */
const NEXT_PAGE = /^(next|next_?cursor|next_?page(_?token|_?url)?|next_?link|has_?more|more)$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The name of a number field that is an instant: `created`, `updated_at`, `timestamp`, `modifiedAt`. */
export const TIME_NAME = /(^|_)(at|time|timestamp|created|updated|modified|date)$|[a-z](At|Time|Timestamp)$/;

/** A pseudo-random stream from a text seed (mulberry32 over the seed's hash). */
export function randomStream(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The schema a record is made from: one object of a combination is followed (the first branch, as a sample is). */
function branch(schema: Schema): Schema {
  for (const key of ['oneOf', 'anyOf'] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) {
      const first = (parts as Schema[]).find((part) => part?.type !== 'null');
      if (first) return first;
    }
  }
  return schema;
}

/** The top-level properties of a record schema, through `allOf` and a combination's first branch. */
export function propertiesOf(schema: Schema): Record<string, Schema> {
  const own = branch(schema);
  const parts = Array.isArray(own.allOf) ? (own.allOf as Schema[]).map(branch) : [own];
  return Object.assign({}, ...parts.map((part) => (part.properties ?? {}) as Record<string, Schema>));
}

/** The field that tells records apart: `id`, else the first `*_id` / `*Id` field of a string or integer. */
export function keyFieldOf(schema: Schema): string | undefined {
  const properties = propertiesOf(schema);
  const names = Object.keys(properties).filter((name) =>
    ['string', 'integer'].includes(typeOf(properties[name]!) ?? ''),
  );
  return names.find((name) => name === 'id') ?? names.find((name) => /(_id|Id|ID)$/.test(name));
}

interface Making {
  index: number;
  at: number;
  key: string | undefined;
  /** The top-level fields every record has, optional or not: its key, and what an incremental read needs. */
  always: ReadonlySet<string>;
  random: () => number;
  seed: string;
}

/**
 * The instants of `count` records: the first records of all end at `end` (the newest is at it);
 * records added later come after `after`, newer than every one before them (a filter that
 * leaves its bound out still finds them). The gaps come from the seed alone.
 */
export function instantsOf(
  seed: string,
  place: { count: number; after: number } | { count: number; end: number },
): number[] {
  const random = randomStream(`${seed}:${'after' in place ? place.after : 'start'}`);
  // 0 s (one in ten) to 1 h after the one before.
  const gaps = Array.from({ length: place.count }, () => (random() < 0.1 ? 0 : 1 + Math.floor(random() * 3600)));
  let at: number;
  if ('after' in place) {
    at = place.after;
    if (gaps.length > 0) gaps[0] = Math.max(gaps[0]!, 1);
  } else {
    if (gaps.length > 0) gaps[0] = 0;
    at = place.end - gaps.reduce((sum, gap) => sum + gap, 0) * 1000;
  }
  return gaps.map((gap) => (at += gap * 1000));
}

/**
 * Makes the records of one schema: record `index` at instant `at` is the same on every call.
 * `always`: top-level fields every record has although the schema leaves them optional (the
 * instant and id an incremental read of the list goes by, which a provider sends on every record).
 */
export class RecordMaker {
  private readonly key: string | undefined;
  private readonly always: ReadonlySet<string>;

  constructor(
    private readonly schema: Schema,
    private readonly seed: string,
    always: readonly string[] = [],
  ) {
    this.key = keyFieldOf(schema);
    this.always = new Set([...always, ...(this.key === undefined ? [] : [this.key])]);
  }

  make(index: number, at: number): unknown {
    const { key, always, seed } = this;
    const making: Making = { index, at, key, always, random: randomStream(`${seed}:${index}`), seed };
    return make(this.schema, making, 0, true);
  }
}

function make(given: Schema | undefined, making: Making, depth: number, top: boolean, name?: string): unknown {
  // A schema that requires (or contains) itself has no finite value: give up far below the stack's limit.
  if (!given || typeof given !== 'object' || depth > 4 * MAX_DEPTH) return null;
  const schema = branch(given);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return schema.enum[Math.floor(making.random() * schema.enum.length)];
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((part) => make(part, making, depth + 1, top, name));
    return parts.every((part) => part !== null && typeof part === 'object' && !Array.isArray(part))
      ? Object.assign({}, ...parts)
      : (parts.find((part) => part !== null) ?? null);
  }
  switch (typeOf(schema)) {
    case 'object':
      return makeObject(schema, making, depth, top);
    case 'array': {
      const min = Number(schema.minItems ?? 0);
      const count = depth >= MAX_DEPTH ? min : Math.max(min, 1 + Math.floor(making.random() * 2));
      const items = Array.from({ length: Math.min(Math.max(count, min), 3) }, () =>
        make(schema.items as Schema | undefined, making, depth + 1, false),
      );
      // Items that must differ and came out the same: one is enough when one is allowed.
      if (schema.uniqueItems === true && new Set(items.map((item) => JSON.stringify(item))).size < items.length)
        return items.slice(0, Math.max(min, 1));
      return items;
    }
    case 'string':
      return makeString(schema, making, name);
    case 'integer':
    case 'number':
      return makeNumber(schema, making, typeOf(schema) === 'integer');
    case 'boolean':
      return making.random() < 0.5;
    default:
      return null;
  }
}

function makeObject(schema: Schema, making: Making, depth: number, top: boolean): Record<string, unknown> {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const value: Record<string, unknown> = {};
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (property?.writeOnly === true || (NEXT_PAGE.test(name) && !required.has(name))) continue;
    // Optional fields are there in about three records in four, and left out of deep objects; those
    // every record has always (the key tells records apart, as Box's optional `event_id` does).
    const left = !required.has(name) && (depth >= MAX_DEPTH || making.random() < 0.25);
    if (left && !(top && making.always.has(name))) continue;
    if (top && name === making.key) value[name] = keyValue(property, making);
    else if (property && !property.format && isNumber(property) && TIME_NAME.test(name))
      value[name] = /ms|millis/i.test(name) ? making.at : Math.floor(making.at / 1000);
    else value[name] = make(property, making, depth + 1, false, name);
  }
  return value;
}

/** A key no other record of the operation has: a UUID from the seed, `n + 1`, or `id_<n + 1>`. */
function keyValue(schema: Schema, making: Making): unknown {
  const n = making.index + 1;
  if (typeOf(schema) === 'integer') return n;
  if (schema.format === 'uuid') return uuidOf(`${making.seed}:key:${making.index}`);
  return `id_${n}`;
}

function uuidOf(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[Number.parseInt(hex[16]!, 16) % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The instant as an RFC 3339 text in whole seconds. */
export function isoSeconds(at: number): string {
  return new Date(at).toISOString().replace('.000Z', 'Z');
}

/** A text: by its format, else the document's example (or the field's name) and the record's number. */
function makeString(schema: Schema, making: Making, name = 'text'): string {
  const n = making.index + 1;
  const byFormat: Record<string, () => string> = {
    'date-time': () => isoSeconds(making.at),
    date: () => isoSeconds(making.at).slice(0, 10),
    time: () => isoSeconds(making.at).slice(11),
    uuid: () => uuidOf(`${making.seed}:${making.index}:${making.random()}`),
    uri: () => `https://example.com/${n}`,
    url: () => `https://example.com/${n}`,
    email: () => `user${n}@example.com`,
    hostname: () => 'example.com',
    ipv4: () => '192.0.2.1',
    ipv6: () => '2001:db8::1',
    byte: () => 'AA==',
  };
  const format = typeof schema.format === 'string' ? byFormat[schema.format] : undefined;
  if (format) return format();
  const given = schema.example ?? schema.default ?? (Array.isArray(schema.examples) ? schema.examples[0] : undefined);
  // An identifier the document shows as a UUID without saying so is made as one.
  if (typeof given === 'string' && UUID.test(given) && !schema.maxLength) return byFormat.uuid!();
  // A pattern is kept by the document's own example (or default); anything else is made.
  if (typeof schema.pattern === 'string' && typeof given === 'string') return given;
  let text = `${typeof given === 'string' ? given : name} ${n}`;
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Number.POSITIVE_INFINITY);
  if (text.length > max) text = text.slice(text.length - max);
  return text.padEnd(min, 'x');
}

function makeNumber(schema: Schema, making: Making, integer: boolean): number {
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
  let low = typeof schema.minimum === 'number' ? schema.minimum : exclusiveMin !== undefined ? exclusiveMin + 1 : 0;
  let high =
    typeof schema.maximum === 'number' ? schema.maximum : exclusiveMax !== undefined ? exclusiveMax - 1 : low + 1000;
  if (schema.exclusiveMinimum === true) low += 1;
  if (schema.exclusiveMaximum === true) high -= 1;
  if (high < low) high = low;
  const value = low + making.random() * (high - low);
  if (!integer) return Math.round(value * 100) / 100;
  const whole = Math.ceil(low) + Math.floor(making.random() * (Math.floor(high) - Math.ceil(low) + 1));
  const step = typeof schema.multipleOf === 'number' && Number.isInteger(schema.multipleOf) ? schema.multipleOf : 1;
  return Math.min(Math.floor(high), Math.ceil(whole / step) * step);
}
