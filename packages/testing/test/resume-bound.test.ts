import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerToken, cursorPaginator, defineAction, defineConnector } from '@plugboard/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineScenario, FIXTURE_FORMAT, type Fixture, fixturePath, incrementalProblems } from '../src/index.js';

/**
 * The second run's newer-than bound, checked for a cursor of unix seconds asked for 1000 ms
 * early: the bound the SDK sends, one whole second before the checkpoint, passes.
 */

/** 2026-01-01T00:00:00Z, in seconds. */
const T = 1_767_225_600;
const Change = z.object({ id: z.string(), modified: z.number().int() }).meta({ id: 'Change' });
const change = (id: string, second: number) => ({ id, modified: T + second });

const connector = defineConnector({
  key: 'changes',
  name: 'Changes',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'An incremental source on a cursor of unix seconds.',
  auth: bearerToken(),
  actions: [
    defineAction({
      key: 'changes.list',
      label: 'List changes',
      direction: 'source',
      entity: Change,
      input: z.object({}),
      incremental: {
        cursorField: 'modified',
        newerThan: { query: 'modified_since', format: 'unix', earlierMs: 1000 },
        order: 'oldest-first',
      },
      paginator: cursorPaginator({ records: 'data', cursor: { from: 'next', to: { query: 'cursor' } } }),
      read: (ctx) => ctx.pages({ path: '/changes' }),
    }),
  ],
});

const first = defineScenario({ name: 'changes-first', action: 'changes.list', input: {} });
const since = defineScenario({
  name: 'changes-since',
  action: 'changes.list',
  input: {},
  checkpoint: { modified_since: T + 2, seen_ids: ['c2'] },
});

/** Each scenario's one page, as a provider that leaves its bound out answered it. */
const PAGES: Record<string, { query: string; data: unknown[] }> = {
  'changes-first': { query: '', data: [change('c1', 1), change('c2', 2)] },
  'changes-since': { query: `?modified_since=${T + 1}`, data: [change('c2', 2), change('c3', 2), change('c4', 3)] },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-resume-bound-'));
  for (const scenario of [first, since]) {
    const { query, data } = PAGES[scenario.name]!;
    const fixture: Fixture = {
      format: FIXTURE_FORMAT,
      connector: { key: 'changes', version: '1.0.0' },
      scenario,
      basePath: '/v1',
      calls: [
        {
          request: { method: 'GET', path: `/v1/changes${query}` },
          response: {
            status: 200,
            body: { data, next: null },
            bodyType: 'json',
            headers: { 'content-type': 'application/json' },
          },
        },
      ],
      outcome: { pages: 0, records: [] },
    };
    await writeFile(fixturePath(dir, scenario.name), JSON.stringify(fixture));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a second run resumes from a checkpoint of unix seconds', () => {
  it('passes with the bound one whole second before the checkpoint, the record read at it dropped', async () => {
    expect(await incrementalProblems(connector, first, since, { fixturesDir: dir })).toEqual([]);
  });
});
