import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectorError,
  defineAction,
  defineConnector,
  type Page,
  ProviderRejectedError,
  type SourceContext,
} from '@plugboard/sdk';
import { catalogueEntry } from '@plugboard/sdk/host';
import { z } from 'zod';
import {
  billableFaultProblems,
  catalogueProblems,
  errorMappingProblems,
  type FaultServer,
  incrementalProblems,
  outcomeProblems,
  recordScenario,
  startFaultServer,
} from '../src/index.js';
import { accountGet, type Invoice, invoicesCreate, sample, type Task, tasksList } from './sample/connector.js';
import { startSampleProvider } from './sample/provider.js';
import { FIXTURES_DIR, invoiceCreate, tasksFull, tasksSince } from './sample/scenarios.js';

/** The suite's checks catch broken connectors: each is run here against one built to fail it. */

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});

describe('billable actions under a 503 and a 429', () => {
  it('pass for the sample connector', async () => {
    expect(await billableFaultProblems(sample, invoiceCreate, { server, basePath: '/v1' })).toEqual([]);
  });

  it('catch an action that retries by itself', async () => {
    const stubborn = defineAction({
      ...invoicesCreate,
      async write(ctx, input) {
        for (let attempt = 1; ; attempt += 1) {
          try {
            return await ctx.http.post<z.input<typeof Invoice>>('/invoices', input);
          } catch (error) {
            if (attempt >= 3) throw error;
          }
        }
      },
    });
    const retrying = defineConnector({ ...sample, actions: [tasksList, accountGet, stubborn] });
    const problems = await billableFaultProblems(retrying, invoiceCreate, { server, basePath: '/v1' });
    expect(problems).toEqual([
      'invoices.create under a 503: 3 requests were sent; a billable action must send exactly one and never retry',
      'invoices.create under a 429: 3 requests were sent; a billable action must send exactly one and never retry',
    ]);
  });
});

describe('401, 402 and 429 mapping', () => {
  it('passes for the sample connector', async () => {
    expect(await errorMappingProblems(sample, tasksFull, { server, basePath: '/v1' })).toEqual([]);
  });

  it('catches a connector that classifies every failure as a rejection', async () => {
    const muddled = defineConnector({
      ...sample,
      classifyError: (failure) =>
        new ProviderRejectedError(`${failure.operation}: rejected`, { status: failure.status }),
    });
    const problems = await errorMappingProblems(muddled, tasksFull, { server, basePath: '/v1' });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toBe(
      'tasks.list under a 401: expected authentication_failed, got provider_rejected: GET /v1/tasks: rejected',
    );
    expect(problems[1]).toContain('expected quota_exhausted, got provider_rejected');
    expect(problems[2]).toContain('expected rate_limited, got provider_rejected');
  });
});

describe('incremental pairs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plugboard-incremental-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('pass for the committed sample fixtures', async () => {
    expect(await incrementalProblems(sample, tasksFull, tasksSince, { fixturesDir: FIXTURES_DIR })).toEqual([]);
  });

  it('catch a provider (or connector) that reads the checkpoint record again', async () => {
    const token = 'incremental-token-123';
    const provider = await startSampleProvider({ token, inclusiveSince: true });
    try {
      const record = (scenario: typeof tasksFull) =>
        recordScenario({ connector: sample, scenario, fixturesDir: dir, baseUrl: provider.baseUrl, credential: token });
      await record(tasksFull);
      provider.addTasks(2);
      await record(tasksSince);
    } finally {
      await provider.close();
    }
    expect(await incrementalProblems(sample, tasksFull, tasksSince, { fixturesDir: dir })).toEqual([
      'the second run read 1 record(s) the first run had read already: "task_5"',
    ]);
  });

  it('pass for a source whose checkpoint is of a later version: each run starts from a checkpoint of that version', async () => {
    type V1 = { updated_after: string };
    const tasksListV2 = defineAction({
      ...tasksList,
      incremental: {
        cursorField: 'updated_at',
        checkpoint: {
          version: 2,
          schema: z.object({ since: z.string() }),
          migrate: { 1: (old: V1) => ({ since: old.updated_after }) },
        },
      },
      async *read(ctx, input) {
        const since = ctx.checkpoint?.since;
        const context = {
          ...ctx,
          checkpoint: since === undefined ? undefined : { updated_after: since },
        } as SourceContext<V1>;
        for await (const page of tasksList.read!(context, input) as AsyncIterable<Page<z.input<typeof Task>, V1>>)
          yield page.checkpoint
            ? { records: page.records, checkpoint: { since: page.checkpoint.updated_after } }
            : { records: page.records };
      },
    });
    const connector = defineConnector({ ...sample, actions: [tasksListV2, accountGet, invoicesCreate] });
    const since = { ...tasksSince, checkpoint: { since: (tasksSince.checkpoint as V1).updated_after } };
    const own = await mkdtemp(join(tmpdir(), 'plugboard-incremental-v2-'));
    const token = 'incremental-token-456';
    const provider = await startSampleProvider({ token });
    try {
      const record = (scenario: typeof tasksFull) =>
        recordScenario({ connector, scenario, fixturesDir: own, baseUrl: provider.baseUrl, credential: token });
      await record(tasksFull);
      provider.addTasks(2);
      expect((await record(since)).fixture.outcome).toMatchObject({ records: [{}, {}] });
      expect(await incrementalProblems(connector, tasksFull, since, { fixturesDir: own })).toEqual([]);
    } finally {
      await provider.close();
      await rm(own, { recursive: true, force: true });
    }
  });

  it('catch a source that ignores its checkpoint: the second run does not replay', async () => {
    const forgetful = defineAction({
      ...tasksList,
      async *read(ctx, input) {
        let query: Record<string, string | number> = { limit: input.limit };
        for (;;) {
          const page = await ctx.http.get<{ data: z.input<typeof Task>[]; paging: { next: string | null } }>('/tasks', {
            query,
          });
          yield { records: page.data, checkpoint: { updated_after: page.data.at(-1)?.updated_at ?? '' } };
          if (!page.paging.next) return;
          query = Object.fromEntries(new URL(page.paging.next).searchParams);
        }
      },
    });
    const connector = defineConnector({ ...sample, actions: [forgetful, accountGet, invoicesCreate] });
    const problems = await incrementalProblems(connector, tasksFull, tasksSince, { fixturesDir: FIXTURES_DIR });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("the second run 'tasks-since', from the first run's checkpoint, does not replay");
    expect(problems[0]).toContain('GET /v1/tasks?limit=2 (no body)');
    expect(problems[0]).toContain(
      'Recorded calls not used yet:\n  GET /v1/tasks?limit=2&updated_after=2026-01-05T09%3A00%3A00.000Z',
    );
  });

  it('catch a second fixture recorded from another checkpoint', async () => {
    const problems = await incrementalProblems(
      sample,
      tasksFull,
      { ...tasksSince, name: 'tasks-full' },
      { fixturesDir: FIXTURES_DIR },
    );
    expect(problems[0]).toContain("was recorded from checkpoint undefined, but 'tasks-full' ends at");
  });
});

describe('catalogue entry and outcome checks', () => {
  it('the sample connector has a valid catalogue entry', () => {
    expect(catalogueProblems(sample)).toEqual([]);
  });

  it('name every wrong field of a catalogue entry', () => {
    const entry = catalogueEntry(sample) as unknown as Record<string, unknown>;
    const operations = entry.operations as Record<string, unknown>[];
    const bad = {
      ...entry,
      summary: 42,
      vendor: undefined,
      limitations: ['ok', 3],
      operations: [
        { ...operations[0], mode: 'write', description: 7 },
        { ...operations[1], approvalRequired: 'no' },
        { ...operations[1] },
      ],
    };
    expect(catalogueProblems(sample, bad)).toEqual([
      'summary must be a non-empty string',
      'vendor must be a string or null',
      'limitations must be a list of strings',
      'operations[0].description must be a string or null',
      "operations[0].mode must be 'source' or 'destination'",
      `operations[0]: mode is "write", the action's direction is 'source'`,
      'operations[1].approvalRequired must be a boolean',
      "operations[1]: approvalRequired is no, the action's approval is 'production'",
      "operations[2]: operation 'invoices.create' is listed twice",
      "action 'tasks.list' has no operation in the entry",
    ]);
  });

  it('compare a replay with what it must give', () => {
    const error = new ConnectorError('out of credits', {
      code: 'quota_exhausted',
      retryable: false,
      platformStatus: 402,
    });
    expect(
      outcomeProblems({ records: [], pages: 1, checkpoint: undefined, error }, { error: 'quota_exhausted' }),
    ).toEqual([]);
    expect(
      outcomeProblems(
        { records: [{ id: 1 }], pages: 1, checkpoint: undefined, error: undefined },
        { error: 'quota_exhausted' },
      ),
    ).toEqual(['expected the run to fail with quota_exhausted, it succeeded with 1 records']);
    expect(
      outcomeProblems(
        { records: [{ id: 1 }], pages: 2, checkpoint: { c: 2 }, error: undefined },
        { records: [{ id: 1 }], pages: 2, checkpoint: { c: 2 } },
      ),
    ).toEqual([]);
    expect(
      outcomeProblems(
        { records: [{ id: 2 }], pages: 1, checkpoint: { c: 1 }, error: undefined },
        { records: [{ id: 1 }], pages: 2, checkpoint: { c: 2 } },
      ),
    ).toHaveLength(3);
    expect(
      outcomeProblems({ records: [{ id: 2 }], pages: 1, checkpoint: undefined, error: undefined }, { records: 1 }),
    ).toEqual([]);
  });
});
