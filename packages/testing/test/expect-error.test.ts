import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerToken, defineAction, defineConnector, QuotaExhaustedError } from '@plugboard/sdk';
import { errorCodes } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type FaultServer,
  RecordingError,
  errorMappingProblems,
  outcomeProblems,
  recordScenario,
  replayScenario,
  startFaultServer,
} from '../src/index.js';

/**
 * A scenario's expected error may name the connector's specific code or the general code of its
 * family: `quota_exhausted` matches a 402 the connector calls `credits_exhausted`.
 */

const Render = z.object({ id: z.string() }).meta({ id: 'CreditsRender' });

const credits = defineConnector({
  key: 'credits',
  name: 'Credits',
  version: '1.0.0',
  vendor: 'Plugboard',
  category: 'developer',
  status: 'alpha',
  summary: 'A billable write whose 402 has a code of its own.',
  auth: bearerToken(),
  baseUrl: 'http://127.0.0.1:9',
  classifyError: (failure) =>
    failure.status === 402
      ? new QuotaExhaustedError(failure.message, { quota: 'credits' }, { status: 402, code: 'credits_exhausted' })
      : undefined,
  actions: [
    defineAction({
      key: 'renders.create',
      label: 'Start a render',
      direction: 'destination',
      entity: Render,
      billable: true,
      input: z.object({ name: z.string() }),
      async write(ctx, input) {
        return ctx.http.post('/renders', input);
      },
    }),
  ],
});

let dir: string;
let server: FaultServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-expect-error-'));
  server = await startFaultServer();
  server.answer({ status: 402, body: { message: 'Insufficient credits to start the render' } });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const scenario = (name: string, error: string) => ({
  name,
  action: 'renders.create',
  input: { name: 'teaser' },
  expect: { error },
});

describe('an expected error', () => {
  it("is the error's codes: its own, then its family's", () => {
    const error = new QuotaExhaustedError('no credits', {}, { code: 'credits_exhausted' });
    expect(errorCodes(error)).toEqual(['credits_exhausted', 'quota_exhausted']);
    expect(errorCodes(new QuotaExhaustedError('no credits'))).toEqual(['quota_exhausted']);
    // The general code is the class's own: its name, which fixtures record, stays the class's.
    expect(QuotaExhaustedError.code).toBe('quota_exhausted');
    expect(error.name).toBe('QuotaExhaustedError');
  });

  for (const code of ['quota_exhausted', 'credits_exhausted']) {
    it(`${code} records and replays a 402 the connector calls credits_exhausted`, async () => {
      const name = `render-${code.replace('_', '-')}`;
      const recorded = await recordScenario({
        connector: credits,
        scenario: scenario(name, code),
        fixturesDir: dir,
        baseUrl: server.url,
        credential: 'credits-token-123456',
      });
      // The fixture keeps the specific code the run gave.
      expect(recorded.fixture.outcome).toMatchObject({ error: { code: 'credits_exhausted', status: 402 } });
      const replayed = await replayScenario({ connector: credits, scenario: name, fixturesDir: dir });
      expect(outcomeProblems(replayed, { error: code })).toEqual([]);
    });
  }

  it('of another family is refused, naming both codes', async () => {
    const error = await recordScenario({
      connector: credits,
      scenario: scenario('render-rate-limited', 'rate_limited'),
      fixturesDir: dir,
      baseUrl: server.url,
      credential: 'credits-token-123456',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as Error).message).toContain('the run failed with credits_exhausted instead of rate_limited');
  });

  it("satisfies the standard suite's 402 probe", async () => {
    const problems = await errorMappingProblems(credits, scenario('render-probe', 'quota_exhausted'), { server });
    expect(problems.filter((problem) => problem.includes('402'))).toEqual([]);
  });
});
