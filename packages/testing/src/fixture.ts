import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InvalidFixtureError } from './errors.js';
import { stableStringify } from './json.js';
import type { Scenario } from './scenario.js';

/**
 * The fixture file: one JSON file per scenario, written with sorted keys and
 * two-space indentation so that a review reads it like any other source file.
 *
 * Paths are stored without an origin: the recorded base URL's origin
 * (`http://127.0.0.1:53211`, a simulator's random port) is dropped, and any
 * mention of it in a body or header is rewritten to `http://provider.test`,
 * the fixed origin replay runs against.
 */

export const FIXTURE_FORMAT = 'plugboard-fixture/1';

/** The origin every replay runs against; the `.test` name never resolves. */
export const REPLAY_ORIGIN = 'http://provider.test';

export type BodyType = 'json' | 'text' | 'hex';

/**
 * Headers by lower-case name. A header that came more than once (two `Set-Cookie`, two `Link`)
 * holds its values in the order they came; one that came once, its value.
 */
export type RecordedHeaders = Record<string, string | string[]>;

export interface RecordedRequest {
  method: string;
  /** Path and query below the origin, base path included, e.g. `/v1/items?limit=2`. */
  path: string;
  /** Request headers as sent, after redaction; shown for review, not matched. */
  headers?: RecordedHeaders;
  body?: unknown;
  /** `json`: `body` is the parsed JSON; `text`: `body` is the text. */
  bodyType?: 'json' | 'text';
}

export interface RecordedResponse {
  status: number;
  headers?: RecordedHeaders;
  body?: unknown;
  /** `json`: parsed JSON; `text`: the text; `hex`: binary bytes as hex. */
  bodyType?: BodyType;
}

export interface RecordedCall {
  request: RecordedRequest;
  response: RecordedResponse;
  /** Only for a call that went to another origin than the connection's base URL. */
  origin?: string;
}

export interface OutcomeError {
  code: string;
  name: string;
  message: string;
  status?: number;
}

export type RecordedOutcome = { pages: number; records: unknown[]; checkpoint?: unknown } | { error: OutcomeError };

/** The scenario as stored: everything needed to run it again. */
export type StoredScenario = Scenario;

export interface Fixture {
  format: typeof FIXTURE_FORMAT;
  connector: { key: string; version: string };
  scenario: StoredScenario;
  /** Path of the base URL the recording used (`/v1`, or `` for the root). */
  basePath: string;
  calls: RecordedCall[];
  outcome: RecordedOutcome;
}

export function fixturePath(fixturesDir: string, scenarioName: string): string {
  return join(fixturesDir, `${scenarioName}.json`);
}

export function serializeFixture(fixture: Fixture): string {
  return stableStringify(fixture);
}

export function parseFixture(text: string, path = '(fixture)'): Fixture {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidFixtureError(path, `not JSON (${(error as Error).message})`);
  }
  const problem = fixtureProblem(value);
  if (problem) throw new InvalidFixtureError(path, problem);
  return value as Fixture;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fixtureProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the top level must be an object';
  if (value.format !== FIXTURE_FORMAT) return `format must be '${FIXTURE_FORMAT}', not ${JSON.stringify(value.format)}`;
  if (
    !isRecord(value.scenario) ||
    typeof value.scenario.name !== 'string' ||
    typeof value.scenario.action !== 'string'
  ) {
    return 'scenario must name the scenario and its action';
  }
  if (!isRecord(value.connector) || typeof value.connector.key !== 'string') return 'connector.key is missing';
  if (typeof value.basePath !== 'string') return 'basePath must be a string';
  if (!Array.isArray(value.calls)) return 'calls must be a list';
  for (const [index, call] of value.calls.entries()) {
    if (!isRecord(call) || !isRecord(call.request) || !isRecord(call.response))
      return `calls[${index}] needs a request and a response`;
    if (
      typeof call.request.method !== 'string' ||
      typeof call.request.path !== 'string' ||
      !call.request.path.startsWith('/')
    ) {
      return `calls[${index}].request needs a method and a path starting with /`;
    }
    if (typeof call.response.status !== 'number') return `calls[${index}].response.status must be a number`;
  }
  if (!isRecord(value.outcome) || !(Array.isArray(value.outcome.records) || isRecord(value.outcome.error))) {
    return 'outcome must hold records or an error';
  }
  return undefined;
}

export async function readFixture(path: string): Promise<Fixture> {
  return parseFixture(await readFile(path, 'utf8'), path);
}

export function readFixtureSync(path: string): Fixture {
  return parseFixture(readFileSync(path, 'utf8'), path);
}

/** Writes through a temporary file and a rename, so a reader never sees half a fixture. */
export async function writeFixtureText(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/** The scenarios stored in a folder's fixtures, sorted by name (empty when the folder does not exist). */
export function scenariosIn(fixturesDir: string): Scenario[] {
  if (!existsSync(fixturesDir)) return [];
  return readdirSync(fixturesDir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => readFixtureSync(join(fixturesDir, file)).scenario);
}

/** The text of an outcome's error, or undefined for a successful run. */
export function outcomeError(outcome: RecordedOutcome): OutcomeError | undefined {
  return 'error' in outcome ? outcome.error : undefined;
}
