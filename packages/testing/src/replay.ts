import { existsSync } from 'node:fs';
import type { ConnectionCredential, Connector, ConnectorError, RetrySettings } from '@plugboard/sdk';
import { createHostTransport, type ManualClock, manualClock } from '@plugboard/sdk/host';
import { replayCredential } from './credential.js';
import { driveClock } from './driven.js';
import { FixtureNotFoundError, TestingKitError, UnrecordedRequestError, UnusedRecordingError } from './errors.js';
import {
  type Fixture,
  fixturePath as pathOf,
  type RecordedCall,
  type RecordedResponse,
  readFixture,
  REPLAY_ORIGIN,
} from './fixture.js';
import { bodyMatches, pathMatches } from './match.js';
import { assertNockOn, exclusive, loadNock, type Nock, settle } from './nock.js';
import { type PagingEndEntry, runScenario } from './run.js';
import { assertScenario, type Scenario } from './scenario.js';

/**
 * Strict replay: the recorded calls become nock interceptors on one fixed
 * origin (`http://provider.test`) and the run's base URL points there, so the
 * port a simulator had when recording does not matter. Net connect is closed
 * (only hosts the caller names may still be reached). A request no recorded
 * call matches aborts the run and fails it, naming method, path and body; a
 * recorded call the run never made fails it too. Each recorded call answers
 * once, in the recorded order among equal requests.
 *
 * The transport runs on a clock replay drives: budget windows, Retry-After pauses and retry
 * backoff are waited in driven time, so a replay takes as long as its calls, not as long as the
 * budget would on the provider, and a recording that needs more requests than a window allows
 * still waits (the result's `drivenMs` says how long).
 */

/** Retries keep their count but not their waits, so a recorded 503-then-200 replays at once. */
const REPLAY_RETRY: Partial<RetrySettings> = { minTimeoutMs: 1, maxTimeoutMs: 20 };

export interface ReplayOptions {
  connector: Connector;
  /** The scenario, or its name alone (then the scenario stored in the fixture runs). */
  scenario: Scenario | string;
  fixturesDir: string;
  /** Starts from this checkpoint instead of the scenario's (the second run of an incremental pair). */
  checkpoint?: unknown;
  /** Hosts (`host` or `host:port`, or a pattern) the replay may still reach; none by default. */
  allowHosts?: readonly (string | RegExp)[];
  retry?: Partial<RetrySettings>;
  /** Default: `replayCredential(connector, fixture.scenario)`, a placeholder of the scheme's shape. */
  credential?: ConnectionCredential;
  /** The clock the transport waits on, which replay moves itself; default a `manualClock()` at the real time. */
  clock?: ManualClock;
}

export interface ReplayResult {
  records: unknown[];
  pages: number;
  checkpoint: unknown;
  /** The run's failure, when it failed with a connector error (a recorded 402, say). */
  error: ConnectorError | undefined;
  /** Why each paged read of the run ended (the SDK's `pagingEnded`), in order. */
  pagingEnds: PagingEndEntry[];
  /** How many recorded calls were replayed (all of them, or replay fails). */
  calls: number;
  /** Milliseconds the replay's clock moved: the waits the budget, Retry-After and retries asked for. */
  drivenMs: number;
  /** How many requests waited for their rate budget (in driven time). */
  budgetWaits: number;
  scenario: Scenario;
  fixture: Fixture;
  fixturePath: string;
}

const MAX_BODY_SHOWN = 500;

function shortBody(body: string): string {
  return body.length > MAX_BODY_SHOWN ? `${body.slice(0, MAX_BODY_SHOWN)}... (${body.length} characters)` : body;
}

/** `POST /v1/orders body {"quantity":3}` as the person fixing the test needs it. */
export function describeCall(call: RecordedCall): string {
  const where = call.origin ? `${call.origin}${call.request.path}` : call.request.path;
  const body =
    call.request.body === undefined
      ? ''
      : typeof call.request.body === 'string'
        ? call.request.body
        : JSON.stringify(call.request.body);
  return `${call.request.method} ${where}${body ? ` body ${shortBody(body)}` : ''}`;
}

async function describeRequest(method: string, url: URL, body: Promise<string>): Promise<string> {
  const where = url.origin === REPLAY_ORIGIN ? `${url.pathname}${url.search}` : url.href;
  let text = '';
  try {
    text = await body;
  } catch {
    text = '(body unreadable)';
  }
  return `${method} ${where}${text ? ` body ${shortBody(text)}` : ' (no body)'}`;
}

function replyBody(response: RecordedResponse): string | Buffer {
  if (response.body === undefined) return '';
  if (response.bodyType === 'hex' && typeof response.body === 'string') return Buffer.from(response.body, 'hex');
  if (response.bodyType === 'text' && typeof response.body === 'string') return response.body;
  return JSON.stringify(response.body);
}

/** Headers as nock's raw list (name, value, name, value ...): a header recorded twice is sent twice. */
function rawHeaders(headers: RecordedResponse['headers']): string[] {
  const raw: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {}))
    for (const item of Array.isArray(value) ? value : [value]) raw.push(name, item);
  return raw;
}

function hostAllowed(allowHosts: readonly (string | RegExp)[], url: URL): boolean {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const candidates = [url.hostname, `${url.hostname}:${port}`];
  return allowHosts.some((host) =>
    candidates.some((candidate) => (typeof host === 'string' ? host === candidate : host.test(candidate))),
  );
}

function intercept(nock: Nock, call: RecordedCall) {
  const scope = nock(call.origin ?? REPLAY_ORIGIN);
  scope
    .intercept(
      (path: string) => pathMatches(call.request.path, path),
      call.request.method,
      (body: unknown) => bodyMatches(call.request.body, call.request.bodyType, body),
    )
    .reply(call.response.status, replyBody(call.response), rawHeaders(call.response.headers));
  return scope;
}

export function replayScenario(options: ReplayOptions): Promise<ReplayResult> {
  if (typeof options.scenario !== 'string') assertScenario(options.scenario);
  return exclusive(() => replay(options));
}

async function replay(options: ReplayOptions): Promise<ReplayResult> {
  const name = typeof options.scenario === 'string' ? options.scenario : options.scenario.name;
  const fixturePath = pathOf(options.fixturesDir, name);
  if (!existsSync(fixturePath)) throw new FixtureNotFoundError(name, fixturePath);
  return replayRecorded(options, await readFixture(fixturePath), fixturePath);
}

/**
 * Strict replay of a fixture held in memory: a variant the suite derived from a recorded one.
 * `fixturePath` names it in errors.
 */
export function replayFixture(
  options: Omit<ReplayOptions, 'fixturesDir'>,
  fixture: Fixture,
  fixturePath: string,
): Promise<ReplayResult> {
  return exclusive(() => replayRecorded(options, fixture, fixturePath));
}

async function replayRecorded(
  options: Omit<ReplayOptions, 'fixturesDir'>,
  fixture: Fixture,
  fixturePath: string,
): Promise<ReplayResult> {
  const { connector } = options;
  const name = typeof options.scenario === 'string' ? options.scenario : options.scenario.name;
  const scenario = typeof options.scenario === 'string' ? fixture.scenario : options.scenario;
  if (fixture.scenario.action !== scenario.action) {
    throw new TestingKitError(
      `scenario '${name}': ${fixturePath} was recorded for action '${fixture.scenario.action}', the scenario runs '${scenario.action}'; re-record it`,
    );
  }
  if (!connector.action(scenario.action)) {
    throw new TestingKitError(`scenario '${name}': connector '${connector.key}' has no action '${scenario.action}'`);
  }
  assertNockOn();

  const allowHosts = options.allowHosts ?? [];
  const nock = await loadNock();
  settle(nock);
  nock.activate();
  nock.disableNetConnect();
  if (allowHosts.length > 0)
    nock.enableNetConnect((host: string) => hostAllowed(allowHosts, new URL(`http://${host}`)));

  const controller = new AbortController();
  const unrecorded: Promise<string>[] = [];
  const onNoMatch = (request: Request) => {
    const url = new URL(request.url);
    if (hostAllowed(allowHosts, url)) return;
    let body: Promise<string>;
    try {
      body = request.clone().text();
    } catch {
      body = Promise.resolve('(body already read)');
    }
    unrecorded.push(describeRequest(request.method, url, body));
    controller.abort(new Error(`unrecorded request ${request.method} ${url.pathname}`));
  };

  const clock = options.clock ?? manualClock(Date.now());
  const transport = createHostTransport({ via: 'fetch', clock });
  let unused: string[] = [];
  let result: Awaited<ReturnType<typeof runScenario>> | undefined;
  let driven = { drivenMs: 0, budgetWaits: 0 };
  let thrown: unknown;
  try {
    const scopes = fixture.calls.map((call) => ({ call, scope: intercept(nock, call) }));
    nock.emitter.on('no match', onNoMatch);
    try {
      const run = await driveClock(clock, () =>
        runScenario(connector, scenario, {
          baseUrl: `${REPLAY_ORIGIN}${fixture.basePath}`,
          credential: options.credential ?? replayCredential(connector, fixture.scenario),
          transport,
          signal: controller.signal,
          retry: { ...REPLAY_RETRY, ...options.retry },
          ...(options.checkpoint !== undefined ? { checkpoint: options.checkpoint } : {}),
        }),
      );
      result = run.value;
      driven = { drivenMs: run.drivenMs, budgetWaits: run.budgetWaits };
    } catch (error) {
      // Reported below, unless an unrecorded request explains it.
      thrown = error;
    } finally {
      nock.emitter.removeListener('no match', onNoMatch);
      unused = scopes.filter(({ scope }) => !scope.isDone()).map(({ call }) => describeCall(call));
    }
  } finally {
    settle(nock);
    await transport.close();
  }
  if (unrecorded.length > 0) throw new UnrecordedRequestError(name, fixturePath, await Promise.all(unrecorded), unused);
  if (thrown !== undefined || !result) throw thrown;
  if (unused.length > 0) throw new UnusedRecordingError(name, fixturePath, unused);
  return { ...result, calls: fixture.calls.length, ...driven, scenario, fixture, fixturePath };
}
