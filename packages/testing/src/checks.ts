import { canonicalJson, approvalOf, catalogueEntry, errorCodes } from '@plugboard/sdk/host';
import type { Connector } from '@plugboard/sdk';
import { type Fixture, outcomeError, type RecordedResponse } from './fixture.js';
import { valueMatches } from './match.js';
import { nextPageMarker } from './paging.js';
import { describeCall, type ReplayResult } from './replay.js';
import type { Scenario, ScenarioExpectation } from './scenario.js';

/**
 * The checks of the standard suite as plain functions returning problems
 * (empty when all is well), so they can be used and tested outside vitest.
 * What the SDK already enforces is not checked again: `defineConnector` throws
 * on a definition with problems, and a run validates every record, the
 * checkpoint and a destination's single result against the action's schemas.
 */

const STRING_FIELDS = ['key', 'name', 'category', 'categoryLabel', 'summary', 'status'] as const;

/** The PublicConnector fields with the platform's types, and an entry that agrees with the definition. */
export function catalogueProblems(connector: Connector, entry: unknown = catalogueEntry(connector)): string[] {
  const problems: string[] = [];
  if (entry === null || typeof entry !== 'object') return ['the catalogue entry is not an object'];
  const record = entry as Record<string, unknown>;
  for (const field of STRING_FIELDS) {
    if (typeof record[field] !== 'string' || record[field] === '') problems.push(`${field} must be a non-empty string`);
  }
  for (const field of ['vendor', 'documentationUrl']) {
    if (!(typeof record[field] === 'string' || record[field] === null))
      problems.push(`${field} must be a string or null`);
  }
  if (typeof record.implemented !== 'boolean') problems.push('implemented must be a boolean');
  if (!Array.isArray(record.limitations) || !record.limitations.every((item) => typeof item === 'string')) {
    problems.push('limitations must be a list of strings');
  }
  if (record.key !== connector.key)
    problems.push(`key is ${JSON.stringify(record.key)}, the connector's is '${connector.key}'`);
  if (!Array.isArray(record.operations)) return [...problems, 'operations must be a list'];
  const seen = new Set<string>();
  for (const [index, operation] of (record.operations as unknown[]).entries()) {
    const at = `operations[${index}]`;
    if (operation === null || typeof operation !== 'object') {
      problems.push(`${at} must be an object`);
      continue;
    }
    const op = operation as Record<string, unknown>;
    if (typeof op.key !== 'string' || op.key === '') problems.push(`${at}.key must be a non-empty string`);
    if (typeof op.label !== 'string' || op.label === '') problems.push(`${at}.label must be a non-empty string`);
    for (const field of ['description', 'entity']) {
      if (!(typeof op[field] === 'string' || op[field] === null))
        problems.push(`${at}.${field} must be a string or null`);
    }
    if (op.mode !== 'source' && op.mode !== 'destination')
      problems.push(`${at}.mode must be 'source' or 'destination'`);
    if (typeof op.approvalRequired !== 'boolean') problems.push(`${at}.approvalRequired must be a boolean`);
    const key = String(op.key);
    if (seen.has(key)) problems.push(`${at}: operation '${key}' is listed twice`);
    seen.add(key);
    const action = connector.action(key);
    if (!action) {
      problems.push(`${at}: operation '${key}' is not an action of the connector`);
      continue;
    }
    if (op.mode !== action.direction)
      problems.push(`${at}: mode is ${JSON.stringify(op.mode)}, the action's direction is '${action.direction}'`);
    if (op.approvalRequired !== (approvalOf(action) !== 'none')) {
      problems.push(
        `${at}: approvalRequired is ${String(op.approvalRequired)}, the action's approval is '${approvalOf(action)}'`,
      );
    }
  }
  for (const action of connector.actions)
    if (!seen.has(action.key)) problems.push(`action '${action.key}' has no operation in the entry`);
  try {
    if (canonicalJson(JSON.parse(JSON.stringify(entry))) !== canonicalJson(entry))
      problems.push('the entry does not survive a JSON round trip');
  } catch (error) {
    problems.push(`the entry is not JSON: ${(error as Error).message}`);
  }
  return problems;
}

/** What a replay must give: the scenario's own expectation, else what the recording gave. */
export function expectationOf(
  scenario: Scenario,
  fixture: Fixture,
): ScenarioExpectation & { pages?: number; checkpoint?: unknown } {
  if (scenario.expect) return scenario.expect;
  const error = outcomeError(fixture.outcome);
  if (error) return { error: error.code };
  const outcome = fixture.outcome as { pages: number; records: unknown[]; checkpoint?: unknown };
  return {
    records: outcome.records,
    pages: outcome.pages,
    ...(outcome.checkpoint !== undefined ? { checkpoint: outcome.checkpoint } : {}),
  };
}

/** Differences between a replay and what it must give. */
export function outcomeProblems(
  result: Pick<ReplayResult, 'records' | 'pages' | 'checkpoint' | 'error'>,
  expected: ScenarioExpectation & { pages?: number; checkpoint?: unknown },
): string[] {
  const problems: string[] = [];
  if (expected.error !== undefined) {
    if (!result.error)
      problems.push(
        `expected the run to fail with ${expected.error}, it succeeded with ${result.records.length} records`,
      );
    else if (!errorCodes(result.error).includes(expected.error))
      problems.push(`expected error ${expected.error}, got ${result.error.code}: ${result.error.message}`);
    return problems;
  }
  if (result.error) return [`the run failed with ${result.error.code}: ${result.error.message}`];
  if (typeof expected.records === 'number') {
    if (result.records.length !== expected.records)
      problems.push(`expected ${expected.records} records, got ${result.records.length}`);
  } else if (expected.records !== undefined && !valueMatches(expected.records, result.records)) {
    problems.push(
      `the records differ from the recorded ones:\n  expected ${JSON.stringify(expected.records)}\n  got      ${JSON.stringify(result.records)}`,
    );
  }
  if (expected.pages !== undefined && result.pages !== expected.pages)
    problems.push(`expected ${expected.pages} pages, got ${result.pages}`);
  if (expected.checkpoint !== undefined && !valueMatches(expected.checkpoint, result.checkpoint)) {
    problems.push(
      `expected checkpoint ${JSON.stringify(expected.checkpoint)}, got ${JSON.stringify(result.checkpoint)}`,
    );
  }
  return problems;
}

/**
 * A successful source run must end on an answer that offers no further page;
 * else it stopped early, and strict replay alone cannot tell. `nextPage`
 * replaces the detection for a provider that pages differently.
 */
export function pagingProblems(fixture: Fixture, nextPage?: (lastResponse: RecordedResponse) => boolean): string[] {
  const last = fixture.calls.at(-1);
  if (!last || outcomeError(fixture.outcome)) return [];
  const marker = nextPage
    ? nextPage(last.response)
      ? "the suite's nextPage option"
      : undefined
    : nextPageMarker(last.response);
  if (!marker) return [];
  const { name, action } = fixture.scenario;
  return [
    `scenario '${name}' (${action}): the last recorded answer (to ${describeCall(last)}) still offers another page (${marker}); the source stopped before the end: follow every page, then re-record`,
  ];
}

/** Identity of a record, for "no record read twice": its `id` when it has one, else the whole record. */
export function defaultRecordKey(record: unknown): string {
  if (record && typeof record === 'object' && 'id' in record) {
    const id = (record as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return String(id);
  }
  return canonicalJson(record);
}
