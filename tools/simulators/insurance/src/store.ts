import type { Answer, ApiError } from './answers.js';
import type { JsonObject } from './body.js';
import { newId } from './ids.js';
import { isoSeconds } from './timestamps.js';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

export interface StoredRecord extends JsonObject {
  id: string;
  created_at: string;
}

/**
 * One pass-through collection: keeps what is posted, in memory, in creation order.
 * Lists page with `?limit=` (1 to 100, default 20) and `?cursor=`: the answer's `next_cursor`
 * (the id of the page's last record, null on the last page) passed back as `cursor`.
 */
export class RecordCollection {
  private readonly records: StoredRecord[] = [];

  constructor(private readonly idPrefix: string) {}

  /** The posted object with a server-assigned `id` and `created_at` (overriding any sent). */
  create(body: JsonObject, now: number): Answer {
    const record: StoredRecord = { ...body, id: newId(this.idPrefix), created_at: isoSeconds(now) };
    this.records.push(record);
    return { status: 201, body: record };
  }

  list(query: URLSearchParams): Answer | ApiError {
    const limitText = query.get('limit');
    const limit = limitText === null || limitText === '' ? DEFAULT_PAGE_LIMIT : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
      return {
        status: 400,
        code: 'invalid_value',
        message: `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`,
        field: 'limit',
      };
    }
    const cursor = query.get('cursor');
    let start = 0;
    if (cursor !== null && cursor !== '') {
      const index = this.records.findIndex((record) => record.id === cursor);
      if (index < 0)
        return { status: 400, code: 'invalid_value', message: 'cursor is not a cursor of this list', field: 'cursor' };
      start = index + 1;
    }
    const data = this.records.slice(start, start + limit);
    const more = start + limit < this.records.length;
    return { status: 200, body: { data, next_cursor: more ? (data.at(-1)?.id ?? null) : null } };
  }

  all(): readonly StoredRecord[] {
    return this.records;
  }
}
