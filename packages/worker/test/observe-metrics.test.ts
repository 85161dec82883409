import { createInsuranceConnector } from '@plugboard/connector-insurance';
import { describe, expect, it } from 'vitest';
import { cancelRun, startWorker, submitRun } from '../src/index.js';
import { fleet, insuranceSubmission, runRows } from './support/fleet.js';
import { hanging } from './support/upstream.js';

const state = fleet();
// One request a second: the runs of this file wait for their budget.
const insurance = createInsuranceConnector({ rateLimits: { default: { limit: 1, per: 'second' } } });

function submission(action: string, input: unknown, baseUrl = state.simulator.url) {
  return insuranceSubmission(state, action, input, { connector: insurance, connection: { baseUrl } });
}

function worker() {
  return startWorker({
    redis: state.redis.url,
    postgres: state.db.url,
    connectors: [insurance],
    concurrency: 1,
    resolveCredential: () => state.simulator.apiKey,
    metricsPort: 0,
    metricsHost: '127.0.0.1',
  });
}

async function scrape(url: string | undefined): Promise<string> {
  const answer = await fetch(url!);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toContain('text/plain');
  return answer.text();
}

/** The value of one sample, `name{labels}` exactly as Prometheus' text shows it; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("the worker's /metrics", () => {
  it('counts runs by status, records, provider requests by status code and budget waits', async () => {
    const running = await worker();
    try {
      expect(running.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      state.simulator.failNext({ kind: 'missing_field' });
      const failed = await submitRun({ ...submission('travel_policies.create', { traveller: 'x' }), follow: {} });
      expect(failed.run?.status).toBe('failed');
      for (const traveller of ['a', 'b'])
        await submitRun({ ...submission('travel_policies.create', { traveller }), follow: {} });
      const read = await submitRun({ ...submission('travel_policies.list', { page_size: 1 }), follow: {} });
      expect(read.run?.status).toBe('succeeded');
      const text = await scrape(running.metricsUrl);
      expect(sample(text, 'plugboard_runs_total{status="succeeded"}')).toBe(3);
      expect(sample(text, 'plugboard_runs_total{status="failed"}')).toBe(1);
      const rows = await runRows(state.db);
      const processed = rows.reduce((sum, row) => sum + row.records_processed, 0);
      expect(processed).toBe(4);
      expect(sample(text, 'plugboard_records_total')).toBe(processed);
      // What the provider counted, status code by status code.
      const byStatus = state.simulator.counters().byStatus;
      expect(Object.keys(byStatus).sort()).toEqual(['200', '201', '422']);
      for (const [status, count] of Object.entries(byStatus))
        expect(sample(text, `plugboard_provider_requests_total{status="${status}"}`)).toBe(count);
      expect(sample(text, 'plugboard_budget_waits_total')).toBeGreaterThan(0);
      expect(sample(text, 'plugboard_budget_wait_seconds_total')).toBeGreaterThan(0);
      // Bounded labels: no run id, connection, URL nor anything the provider sent.
      for (const row of rows) expect(text).not.toContain(row.id);
      expect(text).not.toContain('conn-1');
      expect(text).not.toContain(state.simulator.url);
      expect(await (await fetch(running.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await running.close();
    }
  });

  it('shows the queue depth: a run held by the worker and one waiting behind it', async () => {
    const provider = await hanging();
    const running = await worker();
    try {
      const held = await submitRun(submission('travel_policies.create', { traveller: 'h' }, provider.url));
      const waiting = await submitRun(submission('travel_policies.create', { traveller: 'w' }, provider.url));
      await provider.receivedAtLeast(1);
      const depth = async (state: string) =>
        sample(await scrape(running.metricsUrl), `plugboard_queue_depth{queue="plugboard-writes",state="${state}"}`);
      await expect.poll(() => depth('active'), { timeout: 20_000 }).toBe(1);
      expect(await depth('waiting')).toBe(1);
      for (const { id } of [waiting, held]) await cancelRun({ redis: state.redis.url, postgres: state.db.url, id });
      await expect
        .poll(async () => (await runRows(state.db)).map((row) => row.status))
        .toEqual(['cancelled', 'cancelled']);
      const text = await scrape(running.metricsUrl);
      expect(sample(text, 'plugboard_runs_total{status="cancelled"}')).toBe(1);
      expect(await depth('waiting')).toBe(0);
    } finally {
      await running.close();
      await provider.close();
    }
  });
});
