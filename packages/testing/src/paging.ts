import { normaliseKey } from '@plugboard/sdk/host';
import type { RecordedResponse } from './fixture.js';

/**
 * Whether a recorded answer still offers another page: the common pagination
 * shapes, read generically. A JSON body with a next marker at the top level or
 * one level down (`next_cursor`, `paging.next`, `_links.next`, `has_more: true`
 * ...), or a `Link` header with `rel="next"`.
 */

/** Names (compared without case or separators) whose non-empty value is the next page. */
const NEXT_KEYS = new Set([
  'next',
  'nextcursor',
  'nextpage',
  'nextpagetoken',
  'nexttoken',
  'nextlink',
  'nexturl',
  'nextpageurl',
  'odatanextlink',
]);

/** Names whose `true` says there is more. */
const MORE_KEYS = new Set(['hasmore', 'hasnextpage']);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function offersPage(value: unknown): boolean {
  if (value === null || value === undefined || value === '' || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}

function markerIn(body: Record<string, unknown>, prefix: string): string | undefined {
  for (const [key, value] of Object.entries(body)) {
    const name = normaliseKey(key);
    if (NEXT_KEYS.has(name) && offersPage(value)) return `${prefix}${key}`;
    if (MORE_KEYS.has(name) && value === true) return `${prefix}${key}: true`;
  }
  return undefined;
}

/** `<...>; rel="next"`, `rel=next` or `rel="next last"` among the header's links. */
function linkHeaderOffersNext(value: string): boolean {
  for (const match of value.matchAll(/<[^>]*>[^<]*?;\s*rel\s*=\s*("[^"]*"|[^\s;,]+)/gi)) {
    if (match[1]!.replace(/"/g, '').toLowerCase().split(/\s+/).includes('next')) return true;
  }
  return false;
}

/** The marker that offers another page (`paging.next`, `Link rel="next"`), or undefined. */
export function nextPageMarker(response: RecordedResponse): string | undefined {
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    // A provider may send Link more than once: any of its values may offer the next page.
    const links = Array.isArray(value) ? value : [value];
    if (name.toLowerCase() === 'link' && links.some(linkHeaderOffersNext)) return 'Link rel="next"';
  }
  const body = response.body;
  if (!isObject(body)) return undefined;
  const top = markerIn(body, '');
  if (top) return top;
  for (const [key, value] of Object.entries(body)) {
    const inner = isObject(value) ? markerIn(value, `${key}.`) : undefined;
    if (inner) return inner;
  }
  return undefined;
}
