import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '@plugboard/sdk/host';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import {
  type Method,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  type Parameter,
  pointerTo,
  type Schema,
  unusableIn,
} from '../openapi-document.js';
import { forValidator } from '../openapi-refs.js';
import { exampleOf } from './example.js';
import { readBody, send } from './http.js';
import { OAUTH_PATH, OAuthStandIn, type OAuthStandInOptions } from './oauth-stand-in.js';
import { describeListing, listingOf } from './listing.js';
import { RecordList } from './pages.js';
import { jsonMedia, jsonMediaType, Refusal, refusalBody } from './refusal.js';

/**
 * A local stand-in for an API known only by its OpenAPI document, to record fixtures against
 * before there are credentials: every operation answers its first success response's example
 * (or a sample of its schema), after checking the request as the document describes it (the
 * path and the method, the credential a secured operation needs, required parameters and
 * their types, the JSON body against its schema). A list that pages (listing.ts) answers
 * instead a page of records made from its schema (pages.ts). A refusal is JSON naming the
 * field, in the shape of the operation's error answer when it has one. Everything a client
 * sends is bounded: the body at 1 MiB, the URL at 8 KiB.
 */

export interface MockServerOptions {
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Records each paged list operation starts with. @default 250 */
  records?: number;
  /** What the records are made from: the same seed, the same records. @default '1' */
  seed?: string;
  /** Records each paged list operation adds, newer than all, before each read after its first. @default 0 */
  grow?: number;
  /** The newest of the first records is at the start of this clock's day (UTC); the stand-in authorization server's time. @default systemClock */
  clock?: Clock;
  /** Serves an OAuth2 authorization server beside the API (oauth-stand-in.ts), whose bearer tokens the API then requires. */
  oauth?: Omit<OAuthStandInOptions, 'clock'>;
}

/** A list operation served page by page, and how (for the author to read). */
export interface MockList {
  method: string;
  path: string;
  operationId: string | undefined;
  paging: string;
}

export interface MockSkipped {
  method: string;
  path: string;
  reason: string;
}

export interface MockRequest {
  method: string;
  path: string;
  status: number;
  operationId: string | undefined;
}

export interface MockServer {
  /** The base URL of the API: the address plus the path of the document's first server. */
  readonly url: string;
  readonly operations: number;
  /** The list operations served page by page. */
  readonly lists: readonly MockList[];
  /** The operations not served: each needs what cannot be used, named by its JSON pointer. */
  readonly skipped: readonly MockSkipped[];
  /** Every request answered, oldest first. */
  readonly requests: readonly MockRequest[];
  /** Where the stand-in authorization server is, when it serves one: `--auth-base-url` takes `baseUrl`. */
  readonly oauth?: { baseUrl: string; authorizeUrl: string; tokenUrl: string };
  close(): Promise<void>;
}

// ajv-formats is CommonJS: its default export is the module object under some loaders.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (
  ajv: Ajv | Ajv2020,
) => unknown;

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_URL = 8 * 1024;
/** The most records a list operation holds, growth included. */
export const MAX_RECORDS = 100_000;

interface Route {
  method: Method;
  template: string;
  pattern: RegExp;
  names: string[];
  operation: Operation;
  parameters: Parameter[];
  security: Array<Record<string, string[]>>;
  body?: ValidateFunction;
  list?: RecordList;
}

/** The path of the document's first server (`https://api.example.com/v1` gives `/v1`). */
export function basePathOf(document: OpenApiDocument): string {
  const url = document.servers?.[0]?.url ?? '';
  const path = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*)?(\/[^?#]*)?/.exec(url)?.[1] ?? '';
  return path.replace(/\/+$/, '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The operations the stand-in can serve, and those that need what cannot be used (a reference outside the document). */
function servable(document: OpenApiDocument) {
  const usable: ReturnType<typeof operationsOf> = [];
  const skipped: MockSkipped[] = [];
  for (const entry of operationsOf(document)) {
    const unusable = unusableIn(document, { operation: entry.operation, parameters: entry.parameters });
    if (!unusable) usable.push(entry);
    else
      skipped.push({
        method: entry.method.toUpperCase(),
        path: entry.path,
        reason: `${unusable.pointer}: ${unusable.message}`,
      });
  }
  return { usable, skipped };
}

function routesOf(
  document: OpenApiDocument,
  served: MockServerOptions,
  operations: ReturnType<typeof operationsOf>,
): Route[] {
  const today = Math.floor((served.clock ?? systemClock).now() / DAY_MS) * DAY_MS;
  // Formats a document may name that JSON Schema does not know (float, int64 ...) are not checked, and not a warning.
  const options = { strict: false, allErrors: false, logger: false } as const;
  const ajv = /^3\.1/.test(document.openapi) ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  // Bodies are checked against the document as written: a recursive schema is a `$ref`, not a cycle.
  // A `$id` inside an example is data: ajv, which looks for identifiers under every key, is not shown it (forValidator).
  ajv.addSchema(forValidator(document.source, { names: false }), 'openapi');
  return operations.map(({ path, method, operation, parameters }) => {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${path
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const name = /^\{([^}]+)\}$/.exec(part)?.[1];
          if (name === undefined) return escapeRegExp(part);
          names.push(name);
          return '([^/]+)';
        })
        .join('')}$`,
    );
    const content = operation.requestBody?.content;
    const mediaType = content ? jsonMediaType(content) : undefined;
    const success = successOf(operation);
    const listing = listingOf({
      method,
      path,
      parameters,
      answer: jsonMedia(success.response?.content)?.schema,
      headers: Object.keys(success.response?.headers ?? {}),
      body: mediaType === undefined ? undefined : content?.[mediaType]?.schema,
    });
    const pointer =
      mediaType === undefined || !content?.[mediaType]?.schema
        ? undefined
        : pointerTo(document.source, ['paths', path, method, 'requestBody', 'content', mediaType, 'schema']);
    return {
      method,
      template: path,
      pattern,
      names,
      operation,
      parameters,
      security: operation.security ?? document.security ?? [],
      ...(pointer ? { body: ajv.compile({ $ref: `openapi${pointer}` }) } : {}),
      ...(listing
        ? {
            list: new RecordList(listing, {
              seed: `${served.seed ?? '1'}:${method} ${path}`,
              count: Math.min(served.records ?? 250, MAX_RECORDS),
              grow: served.grow ?? 0,
              end: today,
              cap: MAX_RECORDS,
            }),
          }
        : {}),
    };
  });
}

/** Whether the request carries what one of the operation's security requirements asks for. */
function authorised(
  route: Route,
  document: OpenApiDocument,
  request: IncomingMessage,
  query: URLSearchParams,
): boolean {
  if (route.security.length === 0) return true;
  const schemes = document.components?.securitySchemes ?? {};
  return route.security.some((requirement) =>
    Object.keys(requirement).every((name) => {
      const scheme = schemes[name];
      if (scheme?.type === 'apiKey' && scheme.name) {
        if (scheme.in === 'query') return query.has(scheme.name);
        if (scheme.in === 'cookie') return (request.headers.cookie ?? '').includes(`${scheme.name}=`);
        return request.headers[scheme.name.toLowerCase()] !== undefined;
      }
      return request.headers.authorization !== undefined;
    }),
  );
}

/** Checks a parameter's text against the simple types a parameter has. */
function parameterProblem(parameter: Parameter, value: string): string | undefined {
  const schema = (parameter.schema ?? {}) as Schema;
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  if (type === 'integer' && !/^-?\d+$/.test(value)) return 'must be an integer';
  if (type === 'number' && !Number.isFinite(Number(value))) return 'must be a number';
  if (type === 'boolean' && value !== 'true' && value !== 'false') return 'must be true or false';
  if (Array.isArray(schema.enum) && type !== 'array' && !schema.enum.map(String).includes(value))
    return `must be one of ${schema.enum.map(String).join(', ')}`;
  const number = Number(value);
  if ((type === 'integer' || type === 'number') && typeof schema.minimum === 'number' && number < schema.minimum)
    return `must be at least ${schema.minimum}`;
  if ((type === 'integer' || type === 'number') && typeof schema.maximum === 'number' && number > schema.maximum)
    return `must be at most ${schema.maximum}`;
  return undefined;
}

function checkParameters(
  route: Route,
  pathValues: Record<string, string>,
  query: URLSearchParams,
  request: IncomingMessage,
): void {
  for (const parameter of route.parameters) {
    let value: string | undefined;
    if (parameter.in === 'path') value = pathValues[parameter.name];
    else if (parameter.in === 'query') value = query.get(parameter.name) ?? undefined;
    else if (parameter.in === 'header') {
      const header = request.headers[parameter.name.toLowerCase()];
      value = Array.isArray(header) ? header[0] : header;
    } else continue;
    const field = `${parameter.in}.${parameter.name}`;
    if (value === undefined) {
      if (parameter.required || parameter.in === 'path')
        throw new Refusal(400, 'invalid_request', `${field} is required`);
      continue;
    }
    const problem = parameterProblem(parameter, value);
    if (problem) throw new Refusal(400, 'invalid_request', `${field} ${problem}`);
  }
}

function parsedBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new Refusal(400, 'invalid_request', 'body is not JSON');
  }
}

function checkBody(route: Route, body: Buffer): void {
  const requestBody = route.operation.requestBody;
  if (body.length === 0) {
    if (requestBody?.required) throw new Refusal(400, 'invalid_request', 'body is required');
    return;
  }
  if (!route.body) return;
  const value = parsedBody(body);
  if (!route.body(value)) {
    const [first] = route.body.errors ?? [];
    const where = `body${first?.instancePath ?? ''}`.replace(/\//g, '.');
    const missing =
      first?.keyword === 'required' ? `.${(first.params as { missingProperty?: string }).missingProperty}` : '';
    throw new Refusal(
      400,
      'invalid_request',
      `${where}${missing} ${first?.keyword === 'required' ? 'is required' : (first?.message ?? 'is not valid')}`,
    );
  }
}

/** The operation's first success answer and its status. */
function successOf(operation: Operation) {
  const responses = operation.responses ?? {};
  const code = Object.keys(responses)
    .filter((status) => /^2\d\d$/.test(status))
    .sort()[0];
  return {
    status: code === undefined ? 200 : Number(code),
    response: code === undefined ? responses.default : responses[code],
  };
}

/** The operation's first success answer: its status and example body (none for a 204). */
function answerOf(operation: Operation): { status: number; body: unknown } {
  const { status, response } = successOf(operation);
  const media = jsonMedia(response?.content);
  return { status, body: status === 204 || media === undefined ? undefined : exampleOf(media) };
}

/** The operation a request's path and method name, with the path's values; a 404 or 405 when there is none. */
function routeFor(routes: readonly Route[], basePath: string, url: URL, method: string) {
  if (!url.pathname.startsWith(`${basePath}/`) && url.pathname !== basePath)
    throw new Refusal(404, 'not_found', `no operation at ${url.pathname}`);
  const path = url.pathname.slice(basePath.length) || '/';
  const matches = routes.flatMap((route) => {
    const match = route.pattern.exec(path);
    return match ? [{ route, match }] : [];
  });
  if (matches.length === 0) throw new Refusal(404, 'not_found', `no operation at ${url.pathname}`);
  const found = matches.find(({ route }) => route.method === method);
  if (!found) {
    const allowed = [...new Set(matches.map(({ route }) => route.method.toUpperCase()))].join(', ');
    throw new Refusal(
      405,
      'method_not_allowed',
      `${method.toUpperCase()} is not an operation of ${url.pathname}; it takes ${allowed}`,
      { allow: allowed },
    );
  }
  const { route, match } = found;
  const values = Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
  return { route, values };
}

/** What the stand-in serves and keeps: its document, its operations, and the requests it answered. */
interface Stand {
  document: OpenApiDocument;
  routes: Route[];
  basePath: string;
  /** Where a next URL or a Link points: known once listening. */
  origin: string;
  requests: MockRequest[];
  oauth: OAuthStandIn | undefined;
}

/** Answers one request: a page of a list, the operation's example, or a refusal naming what is wrong. */
async function answer(stand: Stand, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = (request.method ?? 'GET').toLowerCase();
  let operation: Operation | undefined;
  const answered = (path: string, status: number) =>
    stand.requests.push({ method: method.toUpperCase(), path, status, operationId: operation?.operationId });
  try {
    if ((request.url ?? '').length > MAX_URL)
      throw new Refusal(414, 'uri_too_long', `the URL is longer than ${MAX_URL} characters`);
    const url = new URL(request.url ?? '/', 'http://mock.invalid');
    if (stand.oauth?.serves(url.pathname))
      return await stand.oauth.answer(request, response, url, (path, status, what) =>
        stand.requests.push({ method: method.toUpperCase(), path, status, operationId: what }),
      );
    const { route, values } = routeFor(stand.routes, stand.basePath, url, method);
    operation = route.operation;
    const body = await readBody(request);
    if (!authorised(route, stand.document, request, url.searchParams))
      throw new Refusal(
        401,
        'unauthorized',
        'this operation needs a credential (an Authorization header or the API key the document names)',
      );
    const unknownToken = stand.oauth?.bearerRefusal(request);
    if (unknownToken) throw unknownToken;
    checkParameters(route, values, url.searchParams, request);
    checkBody(route, body);
    if (route.list) {
      const { status } = successOf(route.operation);
      const page = route.list.page({
        query: url.searchParams,
        header: (name) => {
          const value = request.headers[name.toLowerCase()];
          return Array.isArray(value) ? value[0] : value;
        },
        path: values,
        // Checked against its schema above, when the document gives one.
        body: body.length === 0 ? undefined : parsedBody(body),
        url: new URL(`${url.pathname}${url.search}`, stand.origin),
      });
      answered(url.pathname, status);
      send(response, status, page.body, page.headers);
      return;
    }
    const example = answerOf(route.operation);
    answered(url.pathname, example.status);
    send(response, example.status, example.body);
  } catch (error) {
    const refusal = error instanceof Refusal ? error : new Refusal(500, 'internal_error', 'the mock failed to answer');
    answered((request.url ?? '').slice(0, 200), refusal.status);
    // A body too large is not read to its end: the connection goes with the answer.
    const close: Record<string, string> = refusal.status === 413 ? { connection: 'close' } : {};
    if (!response.headersSent)
      send(response, refusal.status, refusalBody(refusal, operation), { ...refusal.headers, ...close });
  }
}

/** Listens on the host and port asked for (0: a free one), and says on which port. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export async function startMockServer(document: OpenApiDocument, options: MockServerOptions = {}): Promise<MockServer> {
  const { usable, skipped } = servable(document);
  const stand: Stand = {
    document,
    routes: routesOf(document, options, usable),
    basePath: basePathOf(document),
    origin: 'http://127.0.0.1',
    requests: [],
    oauth: options.oauth && new OAuthStandIn({ ...options.oauth, clock: options.clock ?? systemClock }),
  };
  const server = createServer(
    { maxHeaderSize: 16 * 1024 },
    (request, response) => void answer(stand, request, response),
  );
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  stand.origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${stand.origin}${stand.basePath}`,
    operations: stand.routes.length,
    lists: stand.routes.flatMap((route) =>
      route.list
        ? [
            {
              method: route.method.toUpperCase(),
              path: route.template,
              operationId: route.operation.operationId,
              paging: describeListing(route.list.listing),
            },
          ]
        : [],
    ),
    skipped,
    requests: stand.requests,
    ...(stand.oauth
      ? {
          oauth: {
            baseUrl: `${stand.origin}${OAUTH_PATH}`,
            authorizeUrl: `${stand.origin}${OAUTH_PATH}/authorize`,
            tokenUrl: `${stand.origin}${OAUTH_PATH}/token`,
          },
        }
      : {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
