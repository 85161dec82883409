import type { Clock } from '../clock.js';
import { ProviderUnavailableError, RateLimitedError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import { HeldBack } from '../http/budget-rules.js';
import { transmit } from '../http/exchange.js';
import { type ClientSettings, DEFAULT_RETRY, NEVER } from '../http/settings.js';
import { budget } from '../http/stages/budget.js';
import { networkPolicy } from '../http/stages/network.js';
import type { Send } from '../http/stages/stage.js';
import { timeout } from '../http/stages/timeout.js';

/**
 * How a token request is sent: through the kit's own stages (a budget of its own, one timer,
 * the network policy, the transport's pool), never a global fetch, and given to oauth4webapi
 * as its `customFetch`. A provider's quirks are mended here, before oauth4webapi reads the
 * answer: a missing `token_type` is Bearer; `expires_in` may be a number, a numeric string or
 * a date.
 */

/** The budget token requests draw on, per connection: apart from the API's own. */
export const TOKEN_BUDGET = 'oauth2_token';

/** Default bound of one token request, redirects and body included. */
export const DEFAULT_TOKEN_TIMEOUT_MS = 10_000;

/** Connection failures that say nothing was written: the token endpoint cannot have seen the request. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'address_refused']);

/** What a token request outside any run is sent with: the connection's, to the scheme's token endpoint. */
export type TokenSettings = Pick<
  ClientSettings,
  'connector' | 'action' | 'connectionId' | 'environment' | 'redactor' | 'transport' | 'log'
> & { tokenUrl: string };

/** The settings of token requests outside any run (a sign-in, a host's lifecycle for a run elsewhere): nothing cancels them. */
export function tokenSettings({ tokenUrl, ...settings }: TokenSettings): ClientSettings {
  return { ...settings, baseUrl: tokenUrl, auth: undefined, signal: NEVER, retry: DEFAULT_RETRY };
}

/** Tells whether a token request that failed without an answer may have reached the token endpoint. */
export interface Reach {
  mayHaveArrived: boolean;
}

/**
 * The stages a token request passes, built from the run that asked for it, cancelled by no
 * run. `reach` learns whether a failed request may have been written.
 */
export function tokenSend(run: ClientSettings, timeoutMs: number, reach: Reach): Send {
  const settings: ClientSettings = { ...run, action: { ...run.action, timeoutMs }, signal: NEVER, auth: undefined };
  const send = transmit(settings);
  const watched: Send = (call) =>
    send(call).catch((error: unknown) => {
      if (!(error instanceof HeldBack) && !NOT_SENT.has(codeOf(error) ?? '')) reach.mayHaveArrived = true;
      throw error;
    });
  return budget(settings, timeout(settings, networkPolicy(settings, watched)));
}

function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

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
