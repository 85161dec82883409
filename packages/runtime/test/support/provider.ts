import { answer, type Answer } from '@plugboard/testing';

/**
 * What the runtime tests' provider answers, served by the testing kit's fault server
 * (`startFaultServer`): JSON with a request id, and a paged, incremental list of items.
 */

/** A JSON answer carrying an `x-request-id`, as a provider sends it. */
export function reply(status: number, body: unknown): Answer {
  return answer({ status, body, headers: { 'x-request-id': `req_${Math.random().toString(16).slice(2, 10)}` } });
}

/** `count` items with growing `updated_at`, served `limit` at a time after `updated_after`. */
export function items(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    id: `item_${String(index + 1).padStart(3, '0')}`,
    name: `Item ${index + 1}`,
    updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  }));
}

/** Answers `GET /items?limit&cursor&updated_after` from a list: `{data, next}`. */
export function itemsPage(all: ReturnType<typeof items>, query: URLSearchParams) {
  const limit = Number(query.get('limit') ?? 10);
  const after = query.get('updated_after');
  const cursor = query.get('cursor');
  const from = all.filter((item) => after === null || item.updated_at > after);
  const start = cursor ? from.findIndex((item) => item.id === cursor) : 0;
  const data = from.slice(start, start + limit);
  const next = from[start + limit]?.id;
  return next ? { data, next } : { data };
}
