import pRetry from 'p-retry';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Action, Environment } from '../definition/action.js';
import { retryPolicy } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import { budgetOf } from '../catalogue-entry.js';
import {
  AddressRefusedError,
  CancelledError,
  ConnectorError,
  InvalidInputError,
  NetworkError,
  ProviderUnavailableError,
  RateLimitedError,
  SchemaMismatchError,
  TimeoutError,
} from '../errors.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../secrets.js';
import { classifyByStatus, providerMessage, type ProviderFailure } from './classify.js';
import { exchangeOnce, readyToSend } from './exchange.js';
import { findRequestId, type HeaderReader, NOT_IN_HEADER, parseRetryAfter, toHeaders } from './headers.js';
import type { Budget } from './budget-rules.js';
import type { Transport } from './transport.js';
import { excerpt } from '../excerpt.js';

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
  /** The run's environment: the network policy it connects under. */
  environment: Environment;
  baseUrl: string;
  /** The header carrying the credential, resolved once per run. */
  auth: readonly [string, string] | undefined;
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
  headers: HeaderReader;
  text: string;
}

/** The signal of a run nobody can cancel: nothing listens to it. */
export const NEVER: AbortSignal = new AbortController().signal;

function buildUrl(baseUrl: string, request: HttpRequest): URL {
  const path = request.path.includes('{')
    ? request.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = request.params?.[name];
        if (value === undefined) throw new TypeError(`path ${request.path}: no value for {${name}}`);
        return encodeURIComponent(String(value));
      })
    : request.path;
  const url = new URL(
    `${baseUrl.endsWith('/') ? baseUrl.replace(/\/+$/, '') : baseUrl}/${path.startsWith('/') ? path.replace(/^\/+/, '') : path}`,
  );
  const query = request.query;
  if (query) {
    for (const name in query) {
      const value = query[name];
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
      else url.searchParams.append(name, String(value));
    }
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
  return new RunHttpClient(settings);
}

/**
 * One run's client. A class rather than closures: a run makes one object, and
 * a request allocates little beyond what fetch itself needs.
 */
class RunHttpClient implements HttpClient {
  private readonly maxWaitMs: number;
  private readonly timeoutMs: number;
  /** An undeclared budget still exists: a 429 must pause the requests that share it. */
  private readonly defaultBudget: string;
  private readonly budgets = new Map<string, Budget>();
  /** The headers of the latest answer; its request id is read only when asked for. */
  private lastHeaders: HeaderReader | undefined;
  private lastId: string | undefined;

  constructor(private readonly settings: ClientSettings) {
    this.maxWaitMs = (settings.action.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS) * 1000;
    this.timeoutMs = settings.action.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.defaultBudget = budgetOf(settings.connector, settings.action) ?? 'default';
  }

  get lastRequestId(): string | undefined {
    if (this.lastHeaders) {
      this.lastId = this.requestIdOf(this.lastHeaders) ?? this.lastId;
      this.lastHeaders = undefined;
    }
    return this.lastId;
  }

  /** The provider's request id, redacted (a provider may echo the credential in it) and cut to a short excerpt. */
  private requestIdOf(headers: HeaderReader, body?: unknown): string | undefined {
    const id = findRequestId(headers, body);
    return id === undefined ? undefined : excerpt(this.settings.redactor.redactString(id));
  }

  get<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.data<T>({ ...options, path, method: 'GET' });
  }

  post<T = unknown>(path: string, json?: unknown, options: RequestOptions = {}): Promise<T> {
    return this.data<T>({ ...options, path, method: 'POST', json });
  }

  async request<T = unknown>(request: HttpRequest): Promise<HttpResponse<T>> {
    const { answer, data } = await this.exchange(request);
    // The getter keeps only the headers: holding the whole answer (its text) for as long as a
    // connector holds the response doubled a large read's peak memory (tools/bench/p2-read.mjs).
    const answerHeaders = answer.headers;
    let headers: Headers | undefined;
    return {
      status: answer.status,
      // A WHATWG Headers costs a module load the first time: made only for a caller that reads it.
      get headers() {
        headers ??= toHeaders(answerHeaders);
        return headers;
      },
      data: data as T,
      requestId: this.requestIdOf(answer.headers),
    };
  }

  private async data<T>(request: HttpRequest): Promise<T> {
    return (await this.exchange(request)).data as T;
  }

  private budgetFor(name: string): Budget {
    let budget = this.budgets.get(name);
    if (!budget) {
      const { connector, connectionId, transport } = this.settings;
      budget = transport.budgets.get(connector.key, connectionId, name, connector.rateLimits[name]);
      this.budgets.set(name, budget);
    }
    return budget;
  }

  /** One call with its retries: the successful answer and its parsed body, or a ConnectorError. */
  private async exchange(request: HttpRequest): Promise<{ answer: RawAnswer; data: unknown }> {
    const { settings } = this;
    const { redactor, signal } = settings;
    const url = buildUrl(settings.baseUrl, request);
    // A path holds the caller's ids: errors and logs quote an excerpt of it.
    const operation = excerpt(redactor.redactString(`${request.method ?? 'GET'} ${url.pathname}`));
    const budget = this.budgetFor(request.budget ?? this.defaultBudget);
    const attempt = async (): Promise<{ answer: RawAnswer; data: unknown }> => {
      const answer = await budget.run(() => this.send(url, request, operation), signal, this.maxWaitMs, this.timeoutMs);
      if (answer.status < 200 || answer.status >= 300) throw this.failure(answer, operation);
      return { answer, data: this.parseBody(answer, request.responseType, operation) };
    };
    try {
      if (retryPolicy(settings.action) === 'never') return await attempt();
      // The first attempt goes straight; the retry machinery is set up only for a failure.
      const { retries, minTimeoutMs, maxTimeoutMs } = settings.retry;
      try {
        return await attempt();
      } catch (error) {
        if (retries < 1 || !isTransient(error) || this.waitsTooLong(error)) throw error;
        // p-retry's first backoff, with its jitter.
        const delayMs = Math.min(maxTimeoutMs, Math.round(minTimeoutMs * (1 + Math.random())));
        this.retrying(operation, error, 1, delayMs);
        await sleep(delayMs, undefined, { signal });
      }
      return await pRetry(attempt, {
        retries: retries - 1,
        minTimeout: minTimeoutMs * 2,
        maxTimeout: maxTimeoutMs,
        factor: 2,
        randomize: true,
        signal,
        onFailedAttempt: ({ error }) => {
          if (this.waitsTooLong(error)) throw error;
        },
        shouldRetry: ({ error, attemptNumber, retryDelay }) => {
          const transient = isTransient(error);
          // p-retry counts from its own first attempt, the second of the call.
          if (transient) this.retrying(operation, error, attemptNumber + 1, retryDelay);
          return transient;
        },
      });
    } catch (error) {
      if (signal.aborted) throw new CancelledError(`${operation}: cancelled`);
      if (error instanceof ConnectorError) throw error;
      throw new NetworkError(
        `${operation}: ${excerpt(redactor.redactString(error instanceof Error ? error.message : String(error)))}`,
        { cause: error },
      );
    }
  }

  /** A wait longer than the action accepts fails now, rather than holding a worker. */
  private waitsTooLong(error: unknown): boolean {
    return ((error as { retryAfterMs?: number }).retryAfterMs ?? 0) > this.maxWaitMs;
  }

  private retrying(operation: string, error: unknown, attempt: number, delayMs: number): void {
    this.settings.log.warn('provider call failed; retrying', {
      operation,
      attempt,
      code: (error as ConnectorError).code,
      delayMs,
    });
  }

  /** A failure of the transport itself, told apart from the caller's own abort. */
  private transportError(error: unknown, timedOut: boolean, operation: string, host: string): ConnectorError {
    if (this.settings.signal.aborted) return new CancelledError(`${operation}: cancelled`);
    if (error instanceof AddressRefusedError) return error;
    const code = errorCode(error);
    if (timedOut || code?.includes('TIMEOUT')) {
      return new TimeoutError(`${operation}: no complete answer within ${this.timeoutMs} ms`, { cause: code });
    }
    // A name that does not resolve will not resolve on a retry a second later.
    if (code === 'ENOTFOUND')
      return new NetworkError(`${operation}: the host ${host} does not resolve (ENOTFOUND)`, {
        code: 'host_not_found',
        retryable: false,
      });
    const reason = code ?? (error instanceof Error ? error.message : String(error));
    return new NetworkError(
      `${operation}: the connection to ${host} failed (${excerpt(this.settings.redactor.redactString(reason))})`,
    );
  }

  private requestHeaders(request: HttpRequest): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.headers) {
      for (const name in request.headers) {
        const value = request.headers[name]!;
        // Refused the same on every transport, and never retried: no attempt could send it.
        if (NOT_IN_HEADER.test(value)) {
          throw new InvalidInputError(`${this.settings.connector.key} ${this.settings.action.key}`, [
            {
              path: `headers.${name}`,
              message: 'holds a line break or another character an HTTP header cannot carry; nothing was sent',
            },
          ]);
        }
        headers[name.toLowerCase()] = value;
      }
    }
    if (request.json !== undefined) headers['content-type'] = 'application/json';
    const { auth } = this.settings;
    if (auth) headers[auth[0]] = auth[1];
    return headers;
  }

  /**
   * One request, following redirects by hand: the credential goes only to the
   * base URL's origin, and a 303 (or a 301/302 after a POST) turns into a GET.
   * One timer bounds the whole exchange, redirects and body included.
   */
  private async send(url: URL, request: HttpRequest, operation: string): Promise<RawAnswer> {
    const { settings } = this;
    const { signal, log, auth } = settings;
    const headers = this.requestHeaders(request);
    readyToSend(settings.transport, settings.environment);
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.timeoutMs);
    const cancel = () => abort.abort(signal.reason);
    if (signal !== NEVER) signal.addEventListener('abort', cancel, { once: true });
    const started = log.enabled('debug') ? performance.now() : 0;
    let target = url;
    let method: string = request.method ?? 'GET';
    let body = request.json === undefined ? undefined : JSON.stringify(request.json);
    try {
      for (let hop = 0; ; hop += 1) {
        const answer = await exchangeOnce({
          transport: settings.transport,
          environment: settings.environment,
          target,
          method,
          headers,
          body,
          signal: abort.signal,
        });
        const location = answer.status >= 300 && answer.status < 400 ? answer.headers.get('location') : null;
        if (location && hop < MAX_REDIRECTS) {
          await answer.discard();
          target = new URL(location, target);
          if (auth && target.origin !== url.origin) delete headers[auth[0]];
          if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            delete headers['content-type'];
          }
          continue;
        }
        const text = await answer.text();
        this.lastHeaders = answer.headers;
        if (started) {
          log.debug('provider answered', {
            operation,
            status: answer.status,
            ms: Math.round(performance.now() - started),
            requestId: this.requestIdOf(answer.headers),
          });
        }
        return { status: answer.status, headers: answer.headers, text };
      }
    } catch (error) {
      throw this.transportError(error, timedOut, operation, excerpt(target.host));
    } finally {
      clearTimeout(timer);
      if (signal !== NEVER) signal.removeEventListener('abort', cancel);
    }
  }

  private parseBody(answer: RawAnswer, responseType: HttpRequest['responseType'], operation: string): unknown {
    if (responseType === 'text') return answer.text;
    if (responseType !== 'json' && !(answer.headers.get('content-type') ?? '').toLowerCase().includes('json'))
      return answer.text;
    if (answer.text === '') return undefined;
    try {
      return JSON.parse(answer.text);
    } catch {
      const { connector, action } = this.settings;
      throw new SchemaMismatchError(
        `${connector.key} ${action.key}`,
        [{ path: '', message: `${operation}: the answer is not valid JSON` }],
        {
          status: answer.status,
          requestId: this.requestIdOf(answer.headers),
        },
      );
    }
  }

  private failure(answer: RawAnswer, operation: string): ConnectorError {
    const { redactor, connector } = this.settings;
    let body: unknown = answer.text;
    try {
      body = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      // A bare-text error body stays text.
    }
    const redactedBody = redactor.redact(body);
    const failed: ProviderFailure = {
      status: answer.status,
      headers: toHeaders(answer.headers),
      body: redactedBody,
      message: redactor.redactString(providerMessage(answer.status, redactedBody)),
      requestId: this.requestIdOf(answer.headers, body),
      retryAfterMs: parseRetryAfter(answer.headers.get('retry-after')),
      operation,
    };
    return connector.classifyError?.(failed) ?? classifyByStatus(failed);
  }
}

function isTransient(error: unknown): boolean {
  return TRANSIENT.some((kind) => error instanceof kind) && (error as ConnectorError).retryable;
}
