/** Reading the provider's answer headers that steer the pipeline. */

/** What the pipeline reads of an answer's headers: a WHATWG `Headers` is one. */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * The headers undici.request gives (lower-case names, repeated ones as arrays),
 * read without building a `Headers`; `toHeaders` makes one when a caller wants it.
 */
export class AnswerHeaders implements HeaderReader {
  constructor(private readonly raw: Record<string, string | string[] | undefined>) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  toHeaders(): Headers {
    const headers = new Headers();
    for (const name in this.raw) {
      const value = this.raw[name];
      if (value === undefined) continue;
      for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item);
    }
    return headers;
  }
}

/** A `Headers` for callers of the public API, whichever way the answer came. */
export function toHeaders(headers: HeaderReader): Headers {
  return headers instanceof AnswerHeaders ? headers.toHeaders() : (headers as Headers);
}

/** `Retry-After` in milliseconds: delta-seconds (decimals tolerated) or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** `X-RateLimit-Reset`: seconds from now, or an epoch time in seconds. */
export function parseRateLimitReset(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  const seconds = Number(value);
  return seconds > 1e9 ? Math.max(0, seconds * 1000 - now) : Math.ceil(seconds * 1000);
}

export function parseRemaining(headers: HeaderReader): number | undefined {
  const value = headers.get('x-ratelimit-remaining') ?? headers.get('ratelimit-remaining');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

const REQUEST_ID_HEADERS = [
  'x-request-id',
  'request-id',
  'x-amzn-requestid',
  'x-amz-request-id',
  'x-correlation-id',
  'x-trace-id',
];

/** The provider's request id, from a header or a JSON error body. */
export function findRequestId(headers: HeaderReader, body?: unknown): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers.get(name);
    if (value) return value;
  }
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    for (const key of ['request_id', 'requestId']) {
      if (typeof record[key] === 'string' && record[key]) return record[key] as string;
    }
  }
  return undefined;
}

/** A character no HTTP header value can carry (a line break ends the header early). */
export const NOT_IN_HEADER = /[^\t\x20-\x7e\x80-\xff]/;

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function isHeaderName(name: unknown): name is string {
  return typeof name === 'string' && HEADER_NAME.test(name);
}
