import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isApiError, writeAnswer, writeError, type Answer, type ApiError } from './answers.js';
import { authenticate } from './auth.js';
import { readBody, type RequestBody } from './body.js';
import { RateBudget, resolveBudget, type BudgetCounters, type BudgetName, type BudgetsOptions } from './budgets.js';
import { FailurePlan, parseFailureHeader, type FailureSource, type FailureSpec } from './failures.js';
import { newRequestId } from './ids.js';
import { FAILURE_KINDS, describeWindow, failureMessage, type FailureKind } from './messages.js';
import { seededRandom } from './prng.js';
import { loggableBody, loggableHeaders, type RecordedRequest } from './request-log.js';
import { matchRoute } from './router.js';
import {
  PASS_THROUGH_PATHS,
  QUOTE_OPERATION,
  insuranceRoutes,
  isBillable,
  newCollections,
  type PassThroughPath,
} from './routes.js';
import type { StoredRecord } from './store.js';

/** Obviously not a secret: the simulator accepts this key unless told another. */
export const DEFAULT_API_KEY = 'sim_insurance_fake_key_not_a_secret';
export const DEFAULT_SEED = 1;
const HOST = '127.0.0.1';

export interface InsuranceSimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  apiKey?: string;
  /** Seeds the random failures (default 1), so a run with the same seed and request order repeats. */
  seed?: number;
  /** Milliseconds since the epoch; drives ages, dates, timestamps and the budget windows. */
  clock?: () => number;
  budgets?: BudgetsOptions;
  /** Probability per request of each failure kind, for load tests (default none). */
  failureRates?: Partial<Record<FailureKind, number>>;
  /** Statuses of random failures: each kind's typical one (default) or any the log shows. */
  failureStatuses?: 'typical' | 'any';
  /** Share of random failures answered with a bare-text body (default 0). */
  textErrorRate?: number;
  /** Honour `X-Simulate-Failure` request headers (default false). */
  allowFailureHeader?: boolean;
  /** ISO 4217 code of every amount (default ZAR). */
  currency?: string;
}

export interface SimulatorCounters {
  requests: number;
  byStatus: Record<string, number>;
  /** Hospital cash quotes answered 201. */
  quotesIssued: number;
  /** Records created per pass-through collection. */
  created: Record<PassThroughPath, number>;
  /** Billable writes received: POSTs to the three `.../policies` collections, whatever they were answered. */
  policyWrites: number;
  /** Billable writes that bound cover: records created on the `.../policies` collections. */
  policiesCreated: number;
  injected: Record<FailureKind, number>;
  budgets: Record<BudgetName, BudgetCounters>;
}

export interface InsuranceSimulator {
  /** Base URL without a version: paths carry `/v1` or `/v2`. */
  readonly url: string;
  readonly port: number;
  readonly apiKey: string;
  /** Every request answered, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Scripts the next matching answers as one of the log's failures. */
  failNext(spec: FailureSpec): void;
  clearFailures(): void;
  /** Scripted failures not yet used. */
  pendingFailures(): number;
  counters(): SimulatorCounters;
  /** What a pass-through collection holds, oldest first. */
  stored(path: PassThroughPath): readonly StoredRecord[];
  close(): Promise<void>;
}

export async function startInsuranceSimulator(options: InsuranceSimulatorOptions = {}): Promise<InsuranceSimulator> {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  if (apiKey === '') throw new RangeError('apiKey must not be empty');
  const currency = options.currency ?? 'ZAR';
  if (!/^[A-Z]{3}$/.test(currency)) throw new RangeError(`currency must be an ISO 4217 code, got ${currency}`);
  const clock = options.clock ?? Date.now;
  const budgets: Record<BudgetName, RateBudget> = {
    quotes: new RateBudget(resolveBudget('quotes', options.budgets), clock),
    other: new RateBudget(resolveBudget('other', options.budgets), clock),
  };
  const failures = new FailurePlan(seededRandom(options.seed ?? DEFAULT_SEED), {
    rates: options.failureRates ?? {},
    statuses: options.failureStatuses ?? 'typical',
    textRate: options.textErrorRate ?? 0,
  });
  const collections = newCollections();
  const routes = insuranceRoutes(collections, currency);
  const requests: RecordedRequest[] = [];

  /** The answer to one request, in the order a provider gateway would check it. */
  async function decide(
    req: IncomingMessage,
    method: string,
    path: string,
    query: string,
    now: number,
  ): Promise<Decision> {
    const body = await readBody(req);
    if (isApiError(body)) return { answer: body };
    const matched = matchRoute(routes, method, path);
    if (isApiError(matched)) return { answer: matched, body };
    const { route, params } = matched;
    const decided = (answer: Answer | ApiError, failure?: Decision['failure']): Decision => ({
      answer,
      body,
      operation: route.operation,
      ...(failure ? { failure } : {}),
    });

    let headerSpec: FailureSpec | undefined;
    const header = req.headers['x-simulate-failure'];
    if (options.allowFailureHeader && typeof header === 'string') {
      const parsed = parseFailureHeader(header);
      if (isApiError(parsed)) return decided(parsed);
      headerSpec = parsed;
    }

    const auth = authenticate(req.headers, apiKey);
    if (auth === 'missing') {
      return decided({ status: 401, code: 'missing_authorization', message: failureMessage('missing_auth') });
    }
    if (auth === 'invalid') return decided({ status: 401, code: 'invalid_api_key', message: 'Invalid API key' });

    const budget = budgets[route.budget];
    const admission = budget.take();
    if (!admission.admitted) {
      const { limit, windowMs } = budget.settings;
      return decided({
        status: 429,
        code: 'rate_limit_exceeded',
        message: failureMessage('rate_limited', { limit, per: describeWindow(windowMs) }),
        headers: { 'retry-after': String(admission.retryAfterSeconds) },
      });
    }

    const injected = failures.take(method, path, headerSpec);
    if (injected) return decided(injected.error, { kind: injected.kind, source: injected.source });

    return decided(route.handle({ params, query: new URLSearchParams(query), body, now }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newRequestId();
    const now = clock();
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const path = queryAt < 0 ? target : target.slice(0, queryAt);
    const query = queryAt < 0 ? '' : target.slice(queryAt + 1);
    let decision: Decision;
    try {
      decision = await decide(req, method, path, query, now);
    } catch (error) {
      decision = { answer: { status: 500, code: 'internal_error', message: `Simulator fault: ${String(error)}` } };
    }
    const { answer } = decision;
    // Logged before answering, so a client that has its answer also finds it in the log.
    requests.push({
      at: now,
      method,
      path,
      query,
      headers: loggableHeaders(req.headers),
      body: loggableBody(decision.body),
      status: answer.status,
      requestId,
      ...(decision.operation ? { operation: decision.operation } : {}),
      ...(decision.failure ? { failure: decision.failure } : {}),
    });
    if (isApiError(answer)) writeError(res, requestId, answer, path);
    else writeAnswer(res, requestId, answer);
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://${HOST}:${port}`,
    port,
    apiKey,
    requests,
    failNext: (spec) => failures.failNext(spec),
    clearFailures: () => failures.clear(),
    pendingFailures: () => failures.pending(),
    counters: () => countersOf(requests, collections, budgets),
    stored: (path) => {
      const collection = collections.get(path);
      if (!collection) throw new RangeError(`not a pass-through path: ${path}`);
      return collection.all();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive sockets (fetch keeps them) would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

interface Decision {
  answer: Answer | ApiError;
  body?: RequestBody;
  operation?: string;
  failure?: { kind: FailureKind; source: FailureSource };
}

function countersOf(
  requests: readonly RecordedRequest[],
  collections: ReturnType<typeof newCollections>,
  budgets: Record<BudgetName, RateBudget>,
): SimulatorCounters {
  const byStatus: Record<string, number> = {};
  const injected = Object.fromEntries(FAILURE_KINDS.map((kind) => [kind, 0])) as Record<FailureKind, number>;
  const billablePaths = PASS_THROUGH_PATHS.filter(isBillable);
  let quotesIssued = 0;
  let policyWrites = 0;
  for (const request of requests) {
    byStatus[request.status] = (byStatus[request.status] ?? 0) + 1;
    if (request.failure) injected[request.failure.kind] += 1;
    if (request.operation === QUOTE_OPERATION && request.status === 201) quotesIssued += 1;
    if (request.method === 'POST' && (billablePaths as readonly string[]).includes(request.path)) policyWrites += 1;
  }
  const created = Object.fromEntries(
    PASS_THROUGH_PATHS.map((path) => [path, collections.get(path)?.all().length ?? 0]),
  ) as Record<PassThroughPath, number>;
  const policiesCreated = billablePaths.reduce((sum, path) => sum + created[path], 0);
  return {
    requests: requests.length,
    byStatus,
    quotesIssued,
    created,
    policyWrites,
    policiesCreated,
    injected,
    budgets: { quotes: budgets.quotes.counters(), other: budgets.other.counters() },
  };
}
