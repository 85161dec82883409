import { type Action, type Connector, type ConnectorError, createTransport, type RetrySettings } from '@plugboard/sdk';
import { errorCodes, newerThanBound } from '@plugboard/sdk/host';
import { defaultRecordKey } from './checks.js';
import type { AnswerOptions, FaultServer } from './faults.js';
import { fixturePath, REPLAY_ORIGIN, readFixture } from './fixture.js';
import { valueMatches } from './match.js';
import { replayCredential, schemeOf } from './credential.js';
import { describeCall, type ReplayResult, replayScenario } from './replay.js';
import { runScenario } from './run.js';
import type { Scenario } from './scenario.js';

/**
 * The checks of the standard suite that run the connector: under faults from
 * the fault server, and twice from fixtures for incremental sources. Each
 * returns its problems (empty when all is well), so a test can also assert
 * that a broken connector is caught.
 */

/** Small retry waits: a retry shows as a second request, not as a slow test. */
const FAULT_RETRY: Partial<RetrySettings> = { retries: 2, minTimeoutMs: 1, maxTimeoutMs: 5 };

export interface FaultProbe {
  server: FaultServer;
  /** The base path the scenario was recorded with (`/v1`), appended to the server's URL. */
  basePath?: string;
}

/** Runs a scenario once with every request answered by `fault`; returns the error code and the request count. */
export async function runUnderFault(
  connector: Connector,
  scenario: Scenario,
  probe: FaultProbe,
  fault: AnswerOptions,
): Promise<{ error: ConnectorError | undefined; requests: number }> {
  probe.server.answer(fault).clear();
  // The fault server listens on 127.0.0.1: production scenarios may reach it, and only it.
  const transport = createTransport({ via: 'fetch', network: { allow: ['127.0.0.1'] } });
  try {
    const result = await runScenario(connector, scenario, {
      baseUrl: `${probe.server.url}${probe.basePath ?? ''}`,
      credential: replayCredential(connector, scenario),
      transport,
      retry: FAULT_RETRY,
    });
    return { error: result.error, requests: probe.server.count };
  } finally {
    await transport.close();
  }
}

function mismatch(what: string, outcome: { error: ConnectorError | undefined }, code: string): string | undefined {
  if (!outcome.error) return `${what}: the run succeeded; expected ${code}`;
  // A connector may name the failure more precisely (`credits_exhausted`), within the family.
  if (!errorCodes(outcome.error).includes(code))
    return `${what}: expected ${code}, got ${outcome.error.code}: ${outcome.error.message}`;
  return undefined;
}

/** A billable action must fail after exactly one request on a 503 and on a 429. */
export async function billableFaultProblems(
  connector: Connector,
  scenario: Scenario,
  probe: FaultProbe,
): Promise<string[]> {
  const problems: string[] = [];
  const faults: { status: number; code: string; headers: Record<string, string>; body: unknown }[] = [
    { status: 503, code: 'provider_unavailable', headers: {}, body: { message: 'unavailable (fault)' } },
    { status: 429, code: 'rate_limited', headers: { 'retry-after': '1' }, body: { message: 'slow down (fault)' } },
  ];
  for (const fault of faults) {
    const what = `${scenario.action} under a ${fault.status}`;
    const outcome = await runUnderFault(connector, scenario, probe, {
      status: fault.status,
      headers: fault.headers,
      body: fault.body,
    });
    const wrong = mismatch(what, outcome, fault.code);
    if (wrong) problems.push(wrong);
    if (outcome.requests !== 1)
      problems.push(
        `${what}: ${outcome.requests} requests were sent; a billable action must send exactly one and never retry`,
      );
  }
  return problems;
}

/**
 * 401, 402 and 429 become authentication_failed, quota_exhausted and rate_limited. An
 * authorization code connection's refused token, which the placeholder cannot renew, becomes
 * credentials_changed; a client credentials connection answers a 401 with a new grant from its
 * token endpoint, which the probe cannot serve, so its 401 is not probed.
 */
export async function errorMappingProblems(
  connector: Connector,
  scenario: Scenario,
  probe: FaultProbe,
): Promise<string[]> {
  const problems: string[] = [];
  const scheme = schemeOf(connector, scenario)?.type;
  const refused = scheme === 'oauth2_authorization_code' ? 'credentials_changed' : 'authentication_failed';
  const faults: { status: number; code: string; headers: Record<string, string>; body: unknown }[] = [
    ...(scheme === 'oauth2_client_credentials'
      ? []
      : [{ status: 401, code: refused, headers: {}, body: { message: 'invalid token (fault)' } }]),
    {
      status: 402,
      code: 'quota_exhausted',
      headers: {},
      body: { message: 'Insufficient credits to run this (10 credits required, 0 available)' },
    },
    // A wait longer than any action accepts: the run fails at once, whatever its retry policy.
    { status: 429, code: 'rate_limited', headers: { 'retry-after': '86400' }, body: { message: 'slow down (fault)' } },
  ];
  for (const fault of faults) {
    const outcome = await runUnderFault(connector, scenario, probe, {
      status: fault.status,
      headers: fault.headers,
      body: fault.body,
    });
    const wrong = mismatch(`${scenario.action} under a ${fault.status}`, outcome, fault.code);
    if (wrong) problems.push(wrong);
  }
  return problems;
}

export interface IncrementalProbe {
  fixturesDir: string;
  recordKey?: ((record: unknown, action: string) => unknown) | undefined;
  allowHosts?: readonly (string | RegExp)[] | undefined;
}

/**
 * Two runs from fixtures: the first from the scenario's start, the second
 * from the checkpoint the first ended with. The second fixture must have been
 * recorded from that checkpoint, its replay must match the recording exactly
 * (so the run really started there), and no record may come twice.
 */
export async function incrementalProblems(
  connector: Connector,
  first: Scenario,
  second: Scenario,
  probe: IncrementalProbe,
): Promise<string[]> {
  if (first.action !== second.action)
    return [
      `'${first.name}' runs '${first.action}' and '${second.name}' runs '${second.action}'; a pair runs one action`,
    ];
  const replay = (scenario: Scenario, checkpoint?: unknown) =>
    replayScenario({
      connector,
      scenario,
      fixturesDir: probe.fixturesDir,
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      ...(probe.allowHosts ? { allowHosts: probe.allowHosts } : {}),
    });
  let firstRun: Awaited<ReturnType<typeof replay>>;
  try {
    firstRun = await replay(first);
  } catch (error) {
    return [`the first run '${first.name}' does not replay: ${(error as Error).message}`];
  }
  if (firstRun.error) return [`the first run '${first.name}' failed: ${firstRun.error.message}`];
  if (firstRun.checkpoint === undefined) return [`the first run '${first.name}' emitted no checkpoint`];
  const recordedFrom = (await readFixture(fixturePath(probe.fixturesDir, second.name))).scenario.checkpoint;
  if (!valueMatches(recordedFrom, firstRun.checkpoint)) {
    return [
      `'${second.name}' was recorded from checkpoint ${JSON.stringify(recordedFrom)}, but '${first.name}' ends at ${JSON.stringify(firstRun.checkpoint)}; re-record '${second.name}' from the first run's checkpoint`,
    ];
  }
  let secondRun: Awaited<ReturnType<typeof replay>>;
  try {
    secondRun = await replay(second, firstRun.checkpoint);
  } catch (error) {
    return [
      `the second run '${second.name}', from the first run's checkpoint, does not replay: ${(error as Error).message}`,
    ];
  }
  if (secondRun.error) return [`the second run '${second.name}' failed: ${secondRun.error.message}`];
  const key = (record: unknown) =>
    JSON.stringify(probe.recordKey ? probe.recordKey(record, first.action) : defaultRecordKey(record));
  const seen = new Set(firstRun.records.map(key));
  const twice = secondRun.records.map(key).filter((identity) => seen.has(identity));
  const problems: string[] = [];
  if (twice.length > 0) {
    problems.push(
      `the second run read ${twice.length} record(s) the first run had read already: ${twice.slice(0, 5).join(', ')}`,
    );
  }
  if (secondRun.checkpoint === undefined) problems.push(`the second run '${second.name}' ended without a checkpoint`);
  problems.push(...resumeProblems(connector.action(first.action), firstRun.checkpoint, secondRun));
  return problems;
}

/**
 * What a second run from a declared watermark's checkpoint (`{ <newerThan.query or cursorField>:
 * value, seen_ids }`) must show: its first request carries the newer-than bound the checkpoint
 * gives, and no record the checkpoint holds as read (older than its value, or at it with an id in
 * `seen_ids`) is delivered again. A checkpoint of another shape is the action's own: not checked.
 */
function resumeProblems(action: Action | undefined, checkpoint: unknown, second: ReplayResult): string[] {
  const incremental = action?.direction === 'source' ? action.incremental : undefined;
  if (!incremental || checkpoint === null || typeof checkpoint !== 'object') return [];
  const { newerThan, cursorField, tieBreaker = 'id' } = incremental;
  const mark = checkpoint as Record<string, unknown>;
  const key = newerThan?.query ?? cursorField;
  const at = mark[key];
  if (typeof at !== 'string' && typeof at !== 'number') return [];
  const problems: string[] = [];
  if (newerThan) {
    const first = second.fixture.calls[0];
    const sent = first ? new URL(first.request.path, REPLAY_ORIGIN).searchParams.get(newerThan.query) : null;
    const { format = 'as-is', earlierMs = 0 } = newerThan;
    const expected = newerThanBound(newerThan, at);
    if (!first || sent === null) {
      problems.push(
        `the second run's first request (${first ? describeCall(first) : 'none was sent'}) does not carry ${newerThan.query}, the newer-than bound from the checkpoint's ${JSON.stringify(at)}`,
      );
    } else if (!boundFits(sent, expected, format)) {
      problems.push(
        `the second run's first request asks for ${newerThan.query}=${sent}; from the checkpoint's ${JSON.stringify(at)} it must be ${expected ?? 'a value the format can write'}${earlierMs ? ` (${earlierMs} ms earlier)` : ''}, as ${format}`,
      );
    }
  }
  if (Array.isArray(mark.seen_ids)) {
    const seen = new Set(mark.seen_ids.map(String));
    const from = rank(at);
    const again = second.records.filter((record) => {
      const fields = (record ?? {}) as Record<string, unknown>;
      const when = rank(fields[cursorField]);
      return when < from || (when === from && seen.has(String(fields[tieBreaker])));
    });
    if (again.length > 0) {
      const ids = again.slice(0, 5).map((record) => JSON.stringify((record as Record<string, unknown>)[tieBreaker]));
      problems.push(
        `the second run delivered ${again.length} record(s) its checkpoint holds as read (older than ${JSON.stringify(at)}, or at it with an id in seen_ids): ${ids.join(', ')}`,
      );
    }
  }
  return problems;
}

/** Where a cursor value stands: a number as it is, a string as the instant it names. */
function rank(value: unknown): number {
  return typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** True when `sent` is the bound the SDK asks from for a checkpoint at `at` (an ISO instant in any spelling of it). */
function boundFits(sent: string, expected: string | number | undefined, format: string): boolean {
  if (expected === undefined) return false;
  return format === 'iso' ? Date.parse(sent) === Date.parse(String(expected)) : sent === String(expected);
}
