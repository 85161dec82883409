import type { Parameter } from './openapi-document.js';
import type { ListOperation } from './list-paging.js';
import type { Records } from './list-records.js';
import { bareName } from './paging-names.js';
import { isNumber, propertiesOf, typeOf } from './schema-shape.js';

/**
 * Whether a scaffolded source can read a paged list from a checkpoint on: the newer-than
 * filter the document offers, the record's field it filters on, the id that tells records of
 * one instant apart, and the order to ask for.
 */

/** Reading from a checkpoint on: the newer-than filter, the record's field it filters on, and the order to ask for. */
export interface DetectedIncremental {
  cursorField: string;
  /** The record's id field, when it is not `id`. */
  tieBreaker?: string;
  /** The query parameter asking for records newer than an instant. */
  query: string;
  /** How it writes the instant: ISO 8601 text, or seconds or milliseconds since the epoch. */
  format: 'iso' | 'unix' | 'unix-ms';
  /** Query values that make the list oldest first, when the document offers them. */
  sort?: Record<string, string>;
  order: 'oldest-first' | 'newest-first';
}

/** A name's words: `updatedAfter` and `updated_after` are `updated after`. */
const wordsOf = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

const NEWER_WORDS = new Set(['after', 'since', 'gt', 'gte', 'from', 'min', 'start']);
/** An integer filter is a time only after one of these: `from`, `start` or `min` may be an offset or a count. */
const NEWER_NUMBER_WORDS = new Set(['after', 'since', 'gt', 'gte']);
const UNIT_WORDS = new Set(['ms', 'millis', 'milliseconds', 'seconds', 'secs', 'unix', 'epoch', 'ts']);
const TIME_WORDS = new Set(['at', 'time', 'date', 'on', 'timestamp']);
const SORT_PARAMS = new Set(['sort', 'sortby', 'orderby', 'sortfield']);
const DIRECTION_PARAMS = new Set(['direction', 'order', 'sortdirection', 'sortorder', 'dir']);

/**
 * Incremental reading of a paged list: a date-time query parameter that asks for records newer
 * than an instant (`updated_after`, `modified_since`, `updated_at_min`, `since` ...) whose stem
 * names a date-time field of the record (`updated_at`). Updates are preferred to creations, as
 * they catch changed records too. Undefined without one, or without an id to tell records of
 * one instant apart.
 */
export function incrementalOf(list: ListOperation, records: Records): DetectedIncremental | undefined {
  if (!records.many) return undefined;
  const { properties, required } = propertiesOf(records.item);
  const instants = Object.keys(properties).filter(
    (name) => typeOf(properties[name]) === 'string' && properties[name]!.format === 'date-time',
  );
  const stemOf = (words: string[]) => words.filter((word) => !TIME_WORDS.has(word)).join(' ');
  const candidates = list.parameters.flatMap((parameter) => {
    const unit = filterUnit(parameter);
    if (!unit) return [];
    const words = wordsOf(parameter.name).filter((word) => !UNIT_WORDS.has(word));
    const stem = stemOf(words.slice(0, -1));
    const field = stem
      ? instants.find((name) => stemOf(wordsOf(name)) === stem)
      : (instants.find((name) => /updat|modif|chang/.test(name)) ?? instants.find((name) => /creat/.test(name)));
    return field ? [{ query: parameter.name, field, format: unit }] : [];
  });
  const rank = (field: string) => (/updat|modif|chang/.test(field) ? 0 : /creat/.test(field) ? 2 : 1);
  const chosen = candidates.sort((left, right) => rank(left.field) - rank(right.field))[0];
  if (!chosen) return undefined;
  const resource = wordsOf(
    list.path
      .split('/')
      .filter((segment) => segment && !segment.startsWith('{'))
      .at(-1) ?? '',
  ).join('_');
  const singular = resource.replace(/ies$/, 'y').replace(/s$/, '');
  // The watermark tells records of one instant apart by an id: the record's own (`id`, else `<resource>_id`),
  // which a provider sends on every record whether or not its schema says required (Box's `event_id`), else a
  // `uuid` or `key` the schema requires.
  const own = ['id', `${singular}_id`, `${singular}Id`];
  const idField = [...own, 'uuid', 'key'].find(
    (name) =>
      name in properties &&
      ['string', 'integer'].includes(typeOf(properties[name]) ?? '') &&
      (own.includes(name) || required.has(name)),
  );
  if (!idField) return undefined;
  // Oldest first when the document lets the list be sorted on the field ascending: each page moves the checkpoint on.
  const ascending = sortedAscending(
    list.parameters,
    (value) => stemOf(wordsOf(value)) === stemOf(wordsOf(chosen.field)),
  );
  return {
    cursorField: chosen.field,
    ...(idField === 'id' ? {} : { tieBreaker: idField }),
    query: chosen.query,
    format: chosen.format,
    ...(ascending ? { sort: ascending, order: 'oldest-first' as const } : { order: 'newest-first' as const }),
  };
}

/** How a query parameter that asks for records newer than an instant writes it; undefined for any other parameter. */
function filterUnit(parameter: Parameter): DetectedIncremental['format'] | undefined {
  if (parameter.in !== 'query') return undefined;
  const all = wordsOf(parameter.name);
  const last = all.filter((word) => !UNIT_WORDS.has(word)).at(-1) ?? '';
  if (typeOf(parameter.schema) === 'string' && parameter.schema?.format === 'date-time')
    return NEWER_WORDS.has(last) ? 'iso' : undefined;
  if (!isNumber(parameter.schema) || !NEWER_NUMBER_WORDS.has(last)) return undefined;
  return all.some((word) => ['ms', 'millis', 'milliseconds'].includes(word)) ? 'unix-ms' : 'unix';
}

/**
 * The query values that sort a list ascending on a field: a sort parameter naming it (`updated_at`,
 * or `updated` as GitHub writes it) with a direction parameter taking `asc`, or a sort parameter
 * whose values are `field` and `-field` (JSON:API: the bare name is ascending).
 */
function sortedAscending(
  parameters: readonly Parameter[],
  names: (value: string) => boolean,
): Record<string, string> | undefined {
  const values = (parameter: Parameter) =>
    Array.isArray(parameter.schema?.enum) ? parameter.schema.enum.filter((value) => typeof value === 'string') : [];
  for (const parameter of parameters) {
    if (parameter.in !== 'query' || !SORT_PARAMS.has(bareName(parameter.name))) continue;
    const value = values(parameter).find((entry) => !entry.startsWith('-') && names(entry));
    if (value === undefined) continue;
    if (values(parameter).includes(`-${value}`)) return { [parameter.name]: value };
    const direction = parameters.find(
      (other) =>
        other !== parameter &&
        other.in === 'query' &&
        DIRECTION_PARAMS.has(bareName(other.name)) &&
        values(other).includes('asc'),
    );
    if (direction) return { [parameter.name]: value, [direction.name]: 'asc' };
  }
  return undefined;
}
