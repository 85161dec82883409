import type { Schema } from './openapi-document.js';
import { bareName, CURSOR_NAMES, RECORD_NAMES } from './paging-names.js';
import { propertiesOf, typeOf } from './schema-shape.js';

/** Where an answer keeps its records: the scaffold types an action's data by it, and the paging detection pages it. */

export interface Records {
  /** The envelope's property holding them (the list, or the one record); undefined when the answer is the list or the record. */
  property: string | undefined;
  item: Schema | undefined;
  many: boolean;
}

const ONE_RECORD_NAMES = ['data', 'result', 'record'];

/**
 * Where an answer keeps its records: the answer itself when it is an array, else a `data`,
 * `items`, `results` ... array, or the only array of a small envelope (`{ projects: [...], next }`).
 * An answer about one thing (a path ending in its id) is one record, arrays inside it or not; a
 * path ending in a cursor (`/feed/{cursor}`) is a page of a list.
 */
export function recordsOf(schema: Schema | undefined, path: string): Records {
  const one = oneRecord(schema);
  const last = /\{([^}]+)\}\/?$/.exec(path)?.[1];
  if (last !== undefined && !CURSOR_NAMES.includes(bareName(last))) return one;
  if (typeOf(schema) === 'array') return { property: undefined, item: schema!.items as Schema | undefined, many: true };
  const properties = Object.entries(propertiesOf(schema).properties);
  const arrays = properties.filter(([, property]) => typeOf(property) === 'array');
  const found =
    arrays.find(([name]) => RECORD_NAMES.includes(bareName(name))) ??
    (arrays.length === 1 && properties.length <= 3 ? arrays[0] : undefined);
  return found ? { property: found[0], item: found[1].items as Schema | undefined, many: true } : one;
}

/** Where an answer about one thing keeps it: a small envelope's `data`, `result` or `record` object (`{ data: {...}, meta }`), else the answer itself. */
function oneRecord(schema: Schema | undefined): Records {
  const properties = Object.entries(propertiesOf(schema).properties);
  const envelope =
    properties.length <= 3
      ? properties.find(([name, property]) => ONE_RECORD_NAMES.includes(name) && typeOf(property) === 'object')
      : undefined;
  return envelope
    ? { property: envelope[0], item: envelope[1], many: false }
    : { property: undefined, item: schema, many: false };
}
