import type { Clock } from '../clock.js';
import { ProviderUnavailableError, RateLimitedError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import { NEVER } from '../http/settings.js';
import type { Reach } from '../http/stages/reach.js';
import type { Send } from '../http/stages/stage.js';

/**
 * How a token request is sent: through the pipeline's token-request composition (a budget of
 * its own, one timer, the network policy, the transport's pool: pipeline.ts), never a global
 * fetch, and given to oauth4webapi as its `customFetch`. A provider's quirks are mended here,
 * before oauth4webapi reads the answer: a missing `token_type` is Bearer; `expires_in` may be a
 * number, a numeric string or a date.
 */

/** The budget token requests draw on, per connection: apart from the API's own. */
export const TOKEN_BUDGET = 'oauth2_token';

/** What token requests are counted under in events and logs: they belong to no action of the connector. */
export const TOKEN_ACTION = 'oauth2.token';

/** Default bound of one token request, redirects and body included. */
export const DEFAULT_TOKEN_TIMEOUT_MS = 10_000;

/**
 * The way one connection's token requests go (`tokenRequestSend` in pipeline.ts): each request
 * bounded by `timeoutMs`, cancelled by no run; `reach` learns whether a failed one may have been
 * written.
 */
export type TokenRequests = (timeoutMs: number, reach: Reach) => Send;

/** What oauth4webapi passes its `customFetch`. */
export interface FetchOptions {
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/** oauth4webapi's `customFetch` over `send`: answers 5xx and 429 fail typed here, the rest it reads. */
export function tokenFetch(send: Send, clock: Clock): (url: string, options: FetchOptions) => Promise<Response> {
  return async (url, options) => {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    for (const name in options.headers) headers[name.toLowerCase()] = options.headers[name]!;
    const operation = excerpt(`${options.method} ${target.pathname}`);
    const answer = await send({
      method: options.method,
      url: target,
      headers,
      body: options.body === undefined ? undefined : String(options.body),
      operation,
      budget: TOKEN_BUDGET,
      signal: NEVER,
    });
    if (answer.status === 429)
      throw new RateLimitedError(`${operation}: the token endpoint refused with 429`, undefined, { status: 429 });
    if (answer.status >= 500)
      throw new ProviderUnavailableError(`${operation}: the token endpoint failed with ${answer.status}`, {
        status: answer.status,
      });
    const kept = new Headers();
    for (const name of ['content-type', 'www-authenticate', 'dpop-nonce']) {
      const value = answer.headers.get(name);
      if (value !== null) kept.set(name, value);
    }
    const text = answer.status === 200 ? mended(answer.text, clock.now()) : answer.text;
    return new Response(text, { status: answer.status, headers: kept });
  };
}

/** A successful token answer as RFC 6749 writes it, when a provider wrote it otherwise. */
export function mended(text: string, now: number): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text;
  const fields = body as Record<string, unknown>;
  if (fields.token_type === undefined || fields.token_type === null) fields.token_type = 'Bearer';
  fields.expires_in = expiresIn(fields.expires_in, now);
  if (fields.expires_in === undefined) delete fields.expires_in;
  return JSON.stringify(fields);
}

/** Seconds until expiry, from a number, a numeric string or a date (ISO 8601 or HTTP-date). */
function expiresIn(value: unknown, now: number): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  // Something else is left as it is: oauth4webapi refuses it, naming the field.
  return Number.isNaN(at) ? value : Math.max(0, Math.floor((at - now) / 1000));
}
