import pRetry from 'p-retry';
import type { Action } from '../definition/action.js';
import { retryPolicy } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import { budgetOf } from '../catalogue-entry.js';
import {
  CancelledError,
  ConnectorError,
  NetworkError,
  ProviderUnavailableError,
  RateLimitedError,
  SchemaMismatchError,
  TimeoutError,
} from '../errors.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../secrets.js';
import { classifyByStatus, providerMessage, type ProviderFailure } from './classify.js';
import { findRequestId, parseRetryAfter } from './headers.js';
import type { Budget } from './budget-rules.js';
import type { Transport } from './transport.js';

/** `ctx.http`: every provider call of an action goes through here. */

type QueryValue = string | number | boolean;

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL; `{name}` placeholders are filled from `params`, encoded. */
  path: string;
  params?: Record<string, string | number>;
  /** Query parameters; arrays repeat the parameter, undefined ones are left out. */
  query?: Record<string, QueryValue | readonly QueryValue[] | undefined>;
  /** A JSON body. */
  json?: unknown;
  headers?: Record<string, string>;
  /** The rate budget to draw on; defaults to the action's. */
  budget?: string;
  /** How to read a successful answer; by default JSON when it says so, else text. */
  responseType?: 'json' | 'text';
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
  requestId: string | undefined;
}

export type RequestOptions = Omit<HttpRequest, 'path' | 'method' | 'json'>;

export interface HttpClient {
  request<T = unknown>(request: HttpRequest): Promise<HttpResponse<T>>;
  get<T = unknown>(path: string, options?: RequestOptions): Promise<T>;
  post<T = unknown>(path: string, json?: unknown, options?: RequestOptions): Promise<T>;
  /** The request id of the latest answer, for errors raised after it. */
  readonly lastRequestId: string | undefined;
}

export interface RetrySettings {
  /** Retries after the first attempt. */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

/** Redirects followed before the answer counts as the 3xx it is. */
const MAX_REDIRECTS = 5;

export const DEFAULT_RETRY: RetrySettings = { retries: 4, minTimeoutMs: 300, maxTimeoutMs: 15_000 };
export const DEFAULT_TIMEOUT_MS = 30_000;
// Long enough to wait out a per-minute window, short enough not to hold a worker.
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 90;

export interface ClientSettings {
  connector: Connector;
  action: Action;
  connectionId: string;
  baseUrl: string;
  /** The header carrying the credential, resolved once per run. */
  authorize: () => Promise<[string, string] | undefined>;
  redactor: Redactor;
  transport: Transport;
  signal: AbortSignal;
  log: Logger;
  retry: RetrySettings;
}

/** Failures worth an automatic retry: the same call may well work a moment later. */
const TRANSIENT = [RateLimitedError, ProviderUnavailableError, TimeoutError, NetworkError];

interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  requestId: string | undefined;
}

/** The signal of a run nobody can cancel: nothing listens to it. */
export const NEVER: AbortSignal = new AbortController().signal;

function buildUrl(baseUrl: string, request: HttpRequest): URL {
  const path = request.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.params?.[name];
    if (value === undefined) throw new TypeError(`path ${request.path}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  return url;
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function createHttpClient(settings: ClientSettings): HttpClient {
  const { connector, action, redactor, log, signal } = settings;
  const maxWaitMs = (action.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS) * 1000;
  const timeoutMs = action.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // An undeclared budget still exists: a 429 must pause the requests that share it.
  const defaultBudget = budgetOf(connector, action) ?? 'default';
  let lastRequestId: string | undefined;
  const budgets = new Map<string, Budget>();
  const budgetFor = (name: string): Budget => {
    let budget = budgets.get(name);
    if (!budget) {
      budget = settings.transport.budgets.get(connector.key, settings.connectionId, name, connector.rateLimits[name]);
      budgets.set(name, budget);
    }
    return budget;
  };

  /** A failure of the transport itself, told apart from the caller's own abort. */
  function transportError(error: unknown, timedOut: boolean, operation: string): ConnectorError {
    if (signal.aborted) return new CancelledError(`${operation}: cancelled`);
    const code = errorCode(error);
    if (timedOut || (code && code.includes('TIMEOUT'))) {
      return new TimeoutError(`${operation}: no complete answer within ${timeoutMs} ms`, { cause: code });
    }
    const reason = code ?? (error instanceof Error ? error.message : String(error));
    return new NetworkError(redactor.redactString(`${operation}: the connection failed (${reason})`));
  }

  function requestHeaders(request: HttpRequest, auth: [string, string] | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.headers) for (const name in request.headers) headers[name.toLowerCase()] = request.headers[name]!;
    if (request.json !== undefined) headers['content-type'] = 'application/json';
    if (auth) headers[auth[0].toLowerCase()] = auth[1];
    return headers;
  }

  /**
   * One request, following redirects by hand: the credential goes only to the
   * base URL's origin, and a 303 (or a 301/302 after a POST) turns into a GET.
   * One timer bounds the whole exchange, redirects and body included.
   */
  async function send(url: URL, request: HttpRequest, operation: string): Promise<RawAnswer> {
    const auth = await settings.authorize();
    const headers = requestHeaders(request, auth);
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    const cancel = () => abort.abort(signal.reason);
    if (signal !== NEVER) signal.addEventListener('abort', cancel, { once: true });
    const started = log.enabled('debug') ? performance.now() : 0;
    let target = url;
    let method: string = request.method ?? 'GET';
    let body = request.json === undefined ? undefined : JSON.stringify(request.json);
    try {
      for (let hop = 0; ; hop += 1) {
        const response = await fetch(target, {
          method,
          headers,
          body,
          redirect: 'manual',
          signal: abort.signal,
          // Node's fetch takes an undici dispatcher; the DOM typing does not know it.
          dispatcher: settings.transport.dispatcher,
        } as RequestInit);
        const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
        if (location && hop < MAX_REDIRECTS) {
          await response.body?.cancel();
          target = new URL(location, target);
          if (auth && target.origin !== url.origin) delete headers[auth[0].toLowerCase()];
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            delete headers['content-type'];
          }
          continue;
        }
        const text = await response.text();
        const requestId = findRequestId(response.headers);
        if (requestId !== undefined) lastRequestId = requestId;
        if (started) log.debug('provider answered', { operation, status: response.status, ms: Math.round(performance.now() - started), requestId });
        return { status: response.status, headers: response.headers, text, requestId };
      }
    } catch (error) {
      throw transportError(error, timedOut, operation);
    } finally {
      clearTimeout(timer);
      if (signal !== NEVER) signal.removeEventListener('abort', cancel);
    }
  }

  function parseBody(answer: RawAnswer, responseType: HttpRequest['responseType'], operation: string): unknown {
    const isJson = (answer.headers.get('content-type') ?? '').toLowerCase().includes('json');
    if (responseType === 'text' || (!isJson && responseType !== 'json')) return answer.text;
    if (answer.text === '') return undefined;
    try {
      return JSON.parse(answer.text);
    } catch {
      throw new SchemaMismatchError(`${connector.key} ${action.key}`, [{ path: '', message: `${operation}: the answer is not valid JSON` }], {
        status: answer.status,
        requestId: answer.requestId,
      });
    }
  }

  function failure(answer: RawAnswer, operation: string): ConnectorError {
    let body: unknown = answer.text;
    try {
      body = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      // A bare-text error body stays text.
    }
    const redactedBody = redactor.redact(body);
    const failed: ProviderFailure = {
      status: answer.status,
      headers: answer.headers,
      body: redactedBody,
      message: redactor.redactString(providerMessage(answer.status, redactedBody)),
      requestId: findRequestId(answer.headers, body),
      retryAfterMs: parseRetryAfter(answer.headers.get('retry-after')),
      operation,
    };
    return connector.classifyError?.(failed) ?? classifyByStatus(failed);
  }

  async function request<T>(request: HttpRequest): Promise<HttpResponse<T>> {
    const url = buildUrl(settings.baseUrl, request);
    const operation = redactor.redactString(`${request.method ?? 'GET'} ${url.pathname}`);
    const budget = budgetFor(request.budget ?? defaultBudget);

    const attempt = async (): Promise<HttpResponse<T>> => {
      const answer = await budget.run(() => send(url, request, operation), signal, maxWaitMs, timeoutMs);
      if (answer.status < 200 || answer.status >= 300) throw failure(answer, operation);
      return {
        status: answer.status,
        headers: answer.headers,
        data: parseBody(answer, request.responseType, operation) as T,
        requestId: answer.requestId,
      };
    };

    try {
      if (retryPolicy(action) === 'never') return await attempt();
      return await pRetry(attempt, {
        retries: settings.retry.retries,
        minTimeout: settings.retry.minTimeoutMs,
        maxTimeout: settings.retry.maxTimeoutMs,
        factor: 2,
        randomize: true,
        signal,
        onFailedAttempt: ({ error }) => {
          // A wait longer than the action accepts fails now, rather than holding a worker.
          if ((error as { retryAfterMs?: number }).retryAfterMs! > maxWaitMs) throw error;
        },
        shouldRetry: ({ error, attemptNumber, retryDelay }) => {
          const transient = TRANSIENT.some((kind) => error instanceof kind);
          if (transient) {
            log.warn('provider call failed; retrying', { operation, attempt: attemptNumber, code: (error as ConnectorError).code, delayMs: retryDelay });
          }
          return transient;
        },
      });
    } catch (error) {
      if (signal.aborted) throw new CancelledError(`${operation}: cancelled`);
      if (error instanceof ConnectorError) throw error;
      throw new NetworkError(redactor.redactString(`${operation}: ${error instanceof Error ? error.message : String(error)}`), { cause: error });
    }
  }

  return {
    request,
    get: async <T>(path: string, options: RequestOptions = {}) => (await request<T>({ ...options, path, method: 'GET' })).data,
    post: async <T>(path: string, json?: unknown, options: RequestOptions = {}) =>
      (await request<T>({ ...options, path, method: 'POST', json })).data,
    get lastRequestId() {
      return lastRequestId;
    },
  };
}
