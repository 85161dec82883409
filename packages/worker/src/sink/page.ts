import { ConnectorError, InvalidInputError } from '@plugboard/sdk';
import { StoreValueTooLargeError } from '../errors.js';
import { checkedKey, jsonText, LIMITS } from '../limits.js';

/**
 * A page's records as the sink writes them: each a JSON object with a key, both bounded, in
 * the order given; a key repeated within the page keeps its last record (one upsert per key).
 */

const SUBJECT = 'PostgreSQL sink';

/** How much one page may bring, checked before any statement. */
export const SINK_LIMITS = {
  /** Records in one page. */
  pageRecords: 10_000,
  /** One record, as JSON. */
  recordBytes: LIMITS.valueBytes,
  /** All the records of one page, as JSON. */
  pageBytes: 64 * 1024 * 1024,
  /** A record's key, in UTF-8 bytes. */
  keyBytes: LIMITS.keyBytes,
} as const;

export interface CheckedPage {
  keys: string[];
  records: string[];
}

function refuse(field: string, message: string): never {
  throw new InvalidInputError(SUBJECT, [{ path: field, message }]);
}

/** The record's key: a non-empty string or a finite number, as text. */
function keyOf(record: Record<string, unknown>, keyField: string, field: string): string {
  const value = record[keyField];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value === '')
    refuse(
      `${field}.${keyField}`,
      'must be a non-empty string or a finite number: it is the key the record is kept under',
    );
  return checkedKey(value, SUBJECT, `${field}.${keyField}`);
}

/** The record as JSON text, bounded; a value JSON cannot hold is refused naming the field. */
function textOf(record: unknown, field: string): string {
  try {
    return jsonText(record, SUBJECT, field, SINK_LIMITS.recordBytes);
  } catch (error) {
    if (error instanceof ConnectorError) throw error;
    return refuse(field, 'is not JSON (a cycle or a BigInt)');
  }
}

/** Checks every record of a page before anything is written. */
export function checkPage(records: unknown, keyField: string): CheckedPage {
  if (!Array.isArray(records)) refuse('records', 'must be an array');
  if (records.length > SINK_LIMITS.pageRecords)
    refuse('records', `holds ${records.length} records; a page holds at most ${SINK_LIMITS.pageRecords}`);
  const byKey = new Map<string, string>();
  let bytes = 0;
  for (let index = 0; index < records.length; index += 1) {
    const field = `records[${index}]`;
    const record: unknown = records[index];
    if (typeof record !== 'object' || record === null || Array.isArray(record)) refuse(field, 'must be a JSON object');
    const key = keyOf(record as Record<string, unknown>, keyField, field);
    const text = textOf(record, field);
    bytes += Buffer.byteLength(text, 'utf8');
    if (bytes > SINK_LIMITS.pageBytes)
      throw new StoreValueTooLargeError(SUBJECT, 'records', bytes, SINK_LIMITS.pageBytes);
    // Deleted first so the key takes the place of its last record.
    byKey.delete(key);
    byKey.set(key, text);
  }
  return { keys: [...byKey.keys()], records: [...byKey.values()] };
}
