import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '@plugboard/sdk/host';
import { readFixture } from '../src/fixture.js';
import { replayScenario, type RecordResult } from '../src/index.js';
import { sample } from './sample/connector.js';
import { recordSampleFixtures } from './sample/record-all.js';
import { scenarios } from './sample/scenarios.js';
import { canaryForms } from './support/canary.js';

/**
 * Done-when: every sample scenario is recorded against a local provider that
 * echoes a planted canary credential everywhere it can; no written fixture
 * holds the canary in any form; the fixtures replay with the network closed.
 */

let dir: string;
let canary: string;
let results: RecordResult[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-fixtures-'));
  // Random per run, with characters that change under URL and form encoding.
  canary = `canary-${randomBytes(12).toString('hex')}+/=`;
  results = await recordSampleFixtures(dir, canary);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('recording the sample connector against its local provider', () => {
  it('writes one readable fixture per scenario and returns its path', async () => {
    expect(results.map((result) => result.fixturePath)).toEqual(
      scenarios.map((scenario) => join(dir, `${scenario.name}.json`)),
    );
    expect(results.every((result) => result.written)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(scenarios.map((scenario) => `${scenario.name}.json`).sort());
    for (const result of results) {
      const text = await readFile(result.fixturePath, 'utf8');
      expect(text).toBe(result.text);
      expect(text.endsWith('\n')).toBe(true);
      expect(text).toContain('\n  "calls": [');
    }
  });

  it('leaves the planted canary out of every fixture file, in every form', async () => {
    const forms = canaryForms(canary);
    expect(forms.length).toBeGreaterThan(5);
    for (const file of await readdir(dir)) {
      const text = await readFile(join(dir, file), 'utf8');
      for (const form of forms) expect(text, `${file} holds the canary as ${form}`).not.toContain(form);
      expect(text).not.toMatch(/canary-[0-9a-f]{6}/);
    }
  });

  it('proves the provider did echo it, and that redaction kept the fixtures readable', async () => {
    const tasks = await readFixture(join(dir, 'tasks-full.json'));
    expect(tasks.calls).toHaveLength(3);
    const [first, second] = tasks.calls;
    expect(first!.request).toMatchObject({
      method: 'GET',
      path: '/v1/tasks?limit=2',
      headers: { authorization: `Bearer ${REDACTED}` },
    });
    expect(first!.response.headers).toMatchObject({
      'x-echo-authorization': `Bearer ${REDACTED}`,
      'set-cookie': `session=${REDACTED}; Path=/; HttpOnly`,
    });
    // The next-page link: origin rewritten to the replay origin, token redacted by name.
    expect((first!.response.body as { paging: { next: string } }).paging.next).toBe(
      `http://provider.test/v1/tasks?cursor=2&limit=2&access_token=${REDACTED}`,
    );
    expect(second!.request.path).toBe(`/v1/tasks?cursor=2&limit=2&access_token=${REDACTED}`);
    expect(first!.response.headers?.date).toBeUndefined();

    const accountFixture = await readFixture(join(dir, 'account.json'));
    const body = accountFixture.calls[0]!.response.body as Record<string, string>;
    expect(accountFixture.calls[0]!.response.bodyType).toBe('json');
    expect(body.api_key).toBe(REDACTED);
    expect(body.note).toBe(`token ${REDACTED} was used for this call`);
    expect(body.session).toContain(REDACTED);
    expect(body.links).toEqual({ self: 'http://provider.test/v1/account' });

    const quota = await readFixture(join(dir, 'invoice-over-quota.json'));
    expect(quota.calls[0]!.response).toMatchObject({ status: 402, bodyType: 'text' });
    expect(quota.calls[0]!.response.body).toContain(`for token ${REDACTED}`);
    expect(quota.outcome).toMatchObject({ error: { code: 'quota_exhausted', status: 402 } });
  });

  it('replays every recorded scenario with the network closed, giving what the recording gave', async () => {
    for (const scenario of scenarios) {
      const result = await replayScenario({ connector: sample, scenario, fixturesDir: dir });
      const outcome = result.fixture.outcome;
      if ('error' in outcome) {
        expect(result.error?.code).toBe(outcome.error.code);
      } else {
        expect(result.error).toBeUndefined();
        expect(result.records).toEqual(outcome.records);
        expect(result.pages).toBe(outcome.pages);
        expect(result.checkpoint).toEqual(outcome.checkpoint);
      }
    }
  });
});
