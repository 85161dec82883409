import type { Clock } from '../clock.js';
import { InvalidInputError, SchemaMismatchError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../secrets.js';
import { type HeaderReader, NOT_IN_HEADER, toHeaders } from './headers.js';
import { type PageFetch, paginate } from '../paginate/pages.js';
import type { PageRequest, Paginator, RecordPage } from '../paginate/paginator.js';
import type { HttpRequest } from './request.js';
import { isWriteMethod, type RetrySettings } from './settings.js';
import { requestIdOf } from './stages/redaction.js';
import { RUN_SCOPE, type RunScope } from './stages/run-scope.js';
import type { Answer, Call, Send } from './stages/stage.js';

export type { RetrySettings } from './settings.js';

/** `ctx.http`: every provider call of an action goes through its run's pipeline (pipeline.ts). */

export type { HttpRequest, QueryValue } from './request.js';

/** A provider's answer as `ctx.http.request` returns it: status, headers, parsed body and request id. */
export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
  requestId: string | undefined;
}

/** The options of `ctx.http.get` and its kin: a request without the path, method and body they take as arguments. */
export type RequestOptions = Omit<HttpRequest, 'path' | 'method' | 'json'>;

/** `ctx.http`: every provider call of an action goes through its run's pipeline (budgets, retries, timeouts, credentials). */
export interface HttpClient {
  request<T = unknown>(request: HttpRequest): Promise<HttpResponse<T>>;
  get<T = unknown>(path: string, options?: RequestOptions): Promise<T>;
  post<T = unknown>(path: string, json?: unknown, options?: RequestOptions): Promise<T>;
  /**
   * Every page of a paged read, each request through this pipeline, under the loop guard.
   * @example for await (const page of ctx.http.paginate({ path: '/items' }, cursorPaginator({ records: 'data', cursor: { from: 'next', to: { query: 'cursor' } } }))) yield { records: page.records };
   */
  paginate<R = unknown>(request: HttpRequest, paginator: Paginator): AsyncIterable<RecordPage<R>>;
  /** The request id of the latest answer, for errors raised after it. */
  readonly lastRequestId: string | undefined;
}

function buildUrl(baseUrl: string, request: HttpRequest): URL {
  const path = request.path.includes('{')
    ? request.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = request.params?.[name];
        if (value === undefined) throw new TypeError(`path ${request.path}: no value for {${name}}`);
        return encodeURIComponent(String(value));
      })
    : request.path;
  const url = new URL(
    `${baseUrl.endsWith('/') ? baseUrl.replace(/\/+$/, '') : baseUrl}/${withoutLeadingSlashes(path)}`,
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

/** The path without the slashes it starts with: most paths start with one, which a regular expression per call costs. */
function withoutLeadingSlashes(path: string): string {
  let start = 0;
  while (path.charCodeAt(start) === 47) start += 1;
  return start === 0 ? path : path.slice(start);
}

/** What the runs of one action on one connection build their calls with, and send them down: made once, with the connection's wiring. */
export interface ClientRoute {
  /** The connection's pipeline for the action (pipeline.ts). */
  readonly send: Send;
  readonly baseUrl: string;
  readonly redactor: Redactor;
  /** The transport's clock, which paging's waits read. */
  readonly clock: Clock;
  /** `connector action`, as errors name the run. */
  readonly subject: string;
}

/** A destination's idempotency, when its provider deduplicates on a key and the run has one: the header (lower case) and the key every write request carries. */
export type ClientIdempotency = { header: string; key: string } | undefined;

/**
 * One run's `ctx.http`: builds each call, sends it down the connection's pipeline with the run's
 * scope on it (the client is the scope: its log and retry settings, and it hears every answer),
 * and reads the answer's body. What is the run's own comes as it is, no options object per run:
 * its cancel (every call carries it down the pipeline), its log, how it retries and which of its
 * calls (`retriedCalls` in pipeline.ts), and its idempotency.
 */
export function createHttpClient(
  route: ClientRoute,
  signal: AbortSignal,
  log: Logger,
  retry: RetrySettings,
  retried: RunScope['retried'],
  idempotency: ClientIdempotency,
): HttpClient {
  return new RunHttp(route, signal, log, retry, retried, idempotency);
}

/**
 * A class, not closures: a run makes one object for its `ctx.http`, whatever it calls, holding
 * what is its own and the route its connection's runs share.
 */
class RunHttp implements HttpClient, RunScope {
  /** The headers of the latest answer; its request id is read only when asked for. */
  private lastHeaders: HeaderReader | undefined;
  private lastId: string | undefined;

  constructor(
    private readonly route: ClientRoute,
    private readonly signal: AbortSignal,
    readonly log: Logger,
    readonly retry: RetrySettings,
    readonly retried: RunScope['retried'],
    private readonly idempotency: ClientIdempotency,
  ) {}

  heard(answer: Answer): void {
    this.lastHeaders = answer.headers;
  }

  get lastRequestId(): string | undefined {
    if (this.lastHeaders) {
      this.lastId = requestIdOf(this.route.redactor, this.lastHeaders) ?? this.lastId;
      this.lastHeaders = undefined;
    }
    return this.lastId;
  }

  // A call without options (the common case) builds its request without copying an empty object.
  async get<T = unknown>(path: string, options?: RequestOptions): Promise<T> {
    return (await this.exchange(options ? { ...options, path, method: 'GET' } : { path, method: 'GET' })).data as T;
  }

  async post<T = unknown>(path: string, json?: unknown, options?: RequestOptions): Promise<T> {
    const request: HttpRequest = options ? { ...options, path, method: 'POST', json } : { path, method: 'POST', json };
    return (await this.exchange(request)).data as T;
  }

  paginate<R = unknown>(request: HttpRequest, paginator: Paginator): AsyncIterable<RecordPage<R>> {
    return paginate(this.pages(), request, paginator) as AsyncIterable<RecordPage<R>>;
  }

  private pageFetch: PageFetch | undefined;

  private pages(): PageFetch {
    const { subject, baseUrl, clock, redactor } = this.route;
    const { signal, log } = this;
    this.pageFetch ??= {
      subject,
      clock,
      signal,
      log,
      url: (request: PageRequest, previous: URL | undefined) =>
        request.url === undefined ? buildUrl(baseUrl, request) : this.providerUrl(request.url, previous),
      send: async (request: PageRequest, url: URL) => {
        const { answer, data } = await this.exchange(request, url, request.url !== undefined);
        return {
          status: answer.status,
          data,
          header: (name: string) => answer.headers.get(name),
          requestId: requestIdOf(redactor, answer.headers),
        };
      },
    };
    return this.pageFetch;
  }

  /** A next URL the provider gave: http(s) only, resolved against the page it came with. */
  private providerUrl(href: string, previous: URL | undefined): URL {
    let url: URL | undefined;
    try {
      url = new URL(href, previous ?? this.route.baseUrl);
    } catch {}
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
      const { subject, redactor } = this.route;
      throw new SchemaMismatchError(subject, [
        { path: '(next page)', message: `not an http(s) URL: ${excerpt(redactor.redactString(href))}` },
      ]);
    }
    return url;
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
      requestId: requestIdOf(this.route.redactor, answer.headers),
    };
  }

  /**
   * One call with its retries: the successful answer and its parsed body, or a ConnectorError.
   * `fromProvider`: the URL is a next page's the provider gave, sent as a redirect's hop is (the
   * credential goes to the base URL's origin only).
   */
  private async exchange(
    request: HttpRequest,
    url = buildUrl(this.route.baseUrl, request),
    fromProvider = false,
  ): Promise<{ answer: Answer; data: unknown }> {
    const { redactor } = this.route;
    const { signal } = this;
    const method = request.method ?? 'GET';
    // A path holds the caller's ids: errors, logs and events quote an excerpt of it.
    const operation = excerpt(redactor.redactString(`${method} ${url.pathname}`));
    const call: Call & { [RUN_SCOPE]: RunScope } = {
      method,
      url,
      headers: this.requestHeaders(request, method),
      body: request.json === undefined ? undefined : JSON.stringify(request.json),
      operation,
      budget: request.budget,
      signal,
      [RUN_SCOPE]: this,
    };
    if (fromProvider) call.redirected = true;
    const answer = await this.route.send(call);
    return { answer, data: this.parseBody(answer, request.responseType, operation) };
  }

  private requestHeaders(request: HttpRequest, method: string): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.headers) {
      for (const name in request.headers) {
        const value = request.headers[name]!;
        // Refused the same on every transport, and never retried: no attempt could send it.
        if (NOT_IN_HEADER.test(value)) {
          throw new InvalidInputError(this.route.subject, [
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
    // The provider deduplicates a write on the run's key; a request that set the header keeps its own.
    const { idempotency } = this;
    if (idempotency && isWriteMethod(method) && headers[idempotency.header] === undefined)
      headers[idempotency.header] = idempotency.key;
    return headers;
  }

  private parseBody(answer: Answer, responseType: HttpRequest['responseType'], operation: string): unknown {
    if (responseType === 'text') return answer.text;
    if (responseType !== 'json' && !(answer.headers.get('content-type') ?? '').toLowerCase().includes('json'))
      return answer.text;
    if (answer.text === '') return undefined;
    try {
      return JSON.parse(answer.text);
    } catch {
      const { subject, redactor } = this.route;
      throw new SchemaMismatchError(subject, [{ path: '', message: `${operation}: the answer is not valid JSON` }], {
        status: answer.status,
        requestId: requestIdOf(redactor, answer.headers),
      });
    }
  }
}
