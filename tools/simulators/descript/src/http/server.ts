import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Drives } from '../drive/registry.js';
import { ApiError } from '../errors.js';
import type { OpenApiDocument } from '../openapi/document.js';
import { isRecord } from '../util/fields.js';
import type { FaultQueue } from './faults.js';
import type { RequestBudget } from './rate-limit.js';
import { json, writeReply, type Reply } from './reply.js';
import { queryRecord, type RecordedRequest, type RequestLog } from './request-log.js';
import { matchRoute, type Route } from './route.js';

/**
 * The request pipeline: scripted faults, routing, the bearer token, the request budget,
 * the OpenAPI check, then the route. Every answer carries `X-Request-Id`.
 */

export const BASE_PATH = '/v1';
const MAX_BODY_BYTES = 1024 * 1024;
const RATE_LIMITED = { error: 'rate_limit_exceeded', message: 'Too many requests. Please try again later.' };

export interface Pipeline {
  drives: Drives;
  routes: readonly Route[];
  clock: () => number;
  jobDurationMs: number;
  /** The general request budget, when one is configured. */
  budget?: RequestBudget;
  publishedBudget: RequestBudget;
  openapi?: OpenApiDocument;
  faults: FaultQueue;
  log: RequestLog;
  nextRequestId: () => string;
}

export function requestListener(pipeline: Pipeline): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(pipeline, req, res).catch((error: unknown) => {
      if (!res.headersSent) writeReply(res, json(500, { error: 'internal_error', message: String(error) }), {});
      else res.destroy();
    });
  };
}

async function handle(pipeline: Pipeline, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = pipeline.nextRequestId();
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const method = (req.method ?? 'GET').toUpperCase();
  const raw = await readBody(req);
  const path = url.pathname.startsWith(`${BASE_PATH}/`) ? url.pathname.slice(BASE_PATH.length) : undefined;
  const entry: RecordedRequest = {
    id: requestId,
    method,
    path: path ?? url.pathname,
    query: queryRecord(url.searchParams),
    ...(raw.text === '' ? {} : { body: raw.json === undefined ? raw.text : raw.json }),
    authorized: req.headers.authorization !== undefined,
  };
  pipeline.log.add(entry);
  const headers: Record<string, string> = { 'X-Request-Id': requestId };
  const reply = await answer(pipeline, { method, path, url, raw, authorization: req.headers.authorization }, headers);
  entry.status = reply.status;
  writeReply(res, reply, headers);
}

interface IncomingCall {
  method: string;
  path: string | undefined;
  url: URL;
  raw: RawBody;
  authorization: string | undefined;
}

async function answer(pipeline: Pipeline, call: IncomingCall, headers: Record<string, string>): Promise<Reply> {
  const fault = pipeline.faults.take(call.method, call.path ?? call.url.pathname);
  if (fault) {
    if (fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    return fault.reply;
  }
  const matched = call.path === undefined ? undefined : matchRoute(pipeline.routes, call.method, call.path);
  if (!matched) return new ApiError(404, `No endpoint ${call.method} ${call.url.pathname}`).toReply();

  const token = /^Bearer\s+(\S+)\s*$/i.exec(call.authorization ?? '')?.[1];
  const drive = token === undefined ? undefined : pipeline.drives.byToken(token);
  if (!drive) return new ApiError(401, 'Missing or invalid authentication token').toReply();

  const nowMs = pipeline.clock();
  for (const each of pipeline.drives.all) each.jobs.settle(nowMs);
  const budget = matched.route.budget === 'published' ? pipeline.publishedBudget : pipeline.budget;
  if (budget) {
    const check = budget.take(`${matched.route.budget ?? 'api'}:${drive.token}`, nowMs);
    Object.assign(headers, check.headers);
    if (!check.allowed) return json(429, RATE_LIMITED);
  }

  if (call.raw.tooLarge) return new ApiError(400, 'Request body is too large').toReply();
  if (call.raw.text !== '' && call.raw.json === undefined)
    return new ApiError(400, 'Request body is not valid JSON').toReply();
  const body = call.method === 'POST' ? call.raw.json : undefined;
  if (pipeline.openapi) {
    const violations = pipeline.openapi.validateRequest({
      method: call.method,
      path: call.path ?? '',
      query: call.url.searchParams,
      body,
    });
    if (violations.length > 0) return new ApiError(400, violations.join('; ')).toReply();
  }
  if (call.method === 'POST' && !isRecord(body))
    return new ApiError(400, 'Request body must be a JSON object').toReply();

  try {
    return matched.route.handle({
      drive,
      drives: pipeline.drives,
      params: matched.params,
      query: call.url.searchParams,
      body: isRecord(body) ? body : undefined,
      nowMs,
      jobDurationMs: pipeline.jobDurationMs,
    });
  } catch (error) {
    if (error instanceof ApiError) return error.toReply();
    throw error;
  }
}

interface RawBody {
  text: string;
  /** The parsed body; undefined when empty or not JSON. */
  json: unknown;
  tooLarge?: boolean;
}

async function readBody(req: IncomingMessage): Promise<RawBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Keep draining the socket, but stop buffering an oversized body.
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) return { text: '', json: undefined, tooLarge: true };
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { text: '', json: undefined };
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return { text, json: undefined };
  }
}
