import { expect, it } from 'vitest';
import { followRun, startWorker, submitRun } from '../src/index.js';
import { fleet, insurance, insuranceSubmission, runRows } from './support/fleet.js';
import { held } from './support/upstream.js';

const state = fleet();

function submission(action: string, input: unknown, baseUrl: string, id = 'conn-1') {
  return insuranceSubmission(state, action, input, { connection: { baseUrl, id } });
}

it('PostgreSQL restarted mid-load: the worker reconnects, the runs it held end succeeded, it takes new ones', async () => {
  // The test's own pools lose their idle sessions too.
  for (const pool of state.db.pools) pool.on('error', () => {});
  const provider = await held(state.simulator.url);
  const running = await startWorker({
    redis: state.redis.url,
    postgres: state.db.url,
    connectors: [insurance],
    concurrency: 2,
    resolveCredential: () => state.simulator.apiKey,
  });
  try {
    const reads = await Promise.all(
      // Two connections: one read at a time runs per connection and stream.
      ['conn-1', 'conn-2'].map((id) => submitRun(submission('travel_policies.list', {}, provider.url, id))),
    );
    // Both runs taken and marked running in PostgreSQL, each waiting on its first page.
    await provider.receivedAtLeast(2);
    await state.db.server.restart();
    provider.release();
    const ended = await Promise.all(
      reads.map(({ id }) => followRun({ redis: state.redis.url, postgres: state.db.url, id })),
    );
    expect(ended.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
    const write = await submitRun({
      ...submission('travel_policies.create', { traveller: 'after' }, state.simulator.url),
      idempotencyKey: 'after-restart',
      follow: {},
    });
    expect(write.run?.status).toBe('succeeded');
    expect(state.simulator.counters().policiesCreated).toBe(1);
    const rows = await runRows(state.db);
    expect(rows.map((row) => row.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  } finally {
    await running.close();
    await provider.close();
  }
});
