#!/usr/bin/env node
// The exactly-once sink of @plugboard/worker under crashes, and its speed. Crash trials: a worker
// process (packages/worker/test/support/sink-child.mjs, the built packages) reads the Descript
// simulator's drive (`--crash-size` projects, 10 a page) into the PostgreSQL sink and is killed
// with SIGKILL at an instant drawn from the page requests a proxy in front of the provider
// counted (as the nth arrives, or once its answer went out), then started again until the read
// ends; the rows are then counted against the provider's projects: lost, written twice, exactly
// once. Speed: a read of `--size` projects (`--page` a page) into the sink beside the same read
// into a JSON-lines file (at-least-once: the executor commits the checkpoint after the page is
// appended), each in a fresh process, interleaved, the order alternating, medians over rounds.
// Both keep their checkpoints in the same PostgreSQL (postgresStores). Targets: exactly once in
// every trial; the sink at least 0.8x the JSON-lines sink's records/s. Not a test.
//
//   ./pbw build && node tools/bench/sink-crash.mjs [--trials 200] [--crash-size 95] [--size 20000] [--page 100] [--rounds 5] [--seed 1]
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { built, importTypeStripped, median, positiveInteger, ratio, root, runChild, thousands, times } from './lib.mjs';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '200' },
    'crash-size': { type: 'string', default: '95' },
    size: { type: 'string', default: '20000' },
    page: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
  },
});
const trials = positiveInteger('trials', values.trials);
const crashSize = positiveInteger('crash-size', values['crash-size']);
const size = positiveInteger('size', values.size);
const page = positiveInteger('page', values.page);
const rounds = positiveInteger('rounds', values.rounds);

const worker = await built('packages/worker/dist/index.js');
const { startDescriptSimulator } = await built('tools/simulators/descript/dist/index.js');
const { startPostgres } = await importTypeStripped('packages/worker/test/support/postgres.ts');
const { startPageProxy } = await import(join(root, 'packages/worker/test/support/page-proxy.mjs'));
const child = join(root, 'packages/worker/test/support/sink-child.mjs');

/** mulberry32, seeded: the kill instants of a run can be drawn again. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const server = await startPostgres();
const url = await server.database();
await worker.migrate(url);
const { default: pg } = await import(join(root, 'packages/worker/node_modules/pg/lib/index.js'));
const pool = new pg.Pool({ connectionString: url });

/** No checkpoint, no sink table: a read from the start. */
async function empty() {
  await pool.query('TRUNCATE plugboard_checkpoints');
  const { rows } = await pool.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'plugboard\\_sink\\_%'");
  for (const { tablename } of rows) await pool.query(`DROP TABLE "${tablename}"`);
}

/** One worker run through the proxy, killed at `kill` if the read gets there; resolves with its exit. */
async function runWorker(sim, kill) {
  let process_;
  const proxy = await startPageProxy(sim.url, (count, phase) => {
    if (kill && count === kill.page && phase === kill.phase) process_?.kill('SIGKILL');
  });
  try {
    const args = [child, '--postgres', url, '--base-url', proxy.url, '--token', sim.token];
    process_ = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    return await new Promise((resolve) => process_.once('exit', (code, signal) => resolve({ code, signal })));
  } finally {
    await proxy.close();
  }
}

async function crashTrials() {
  const sim = await startDescriptSimulator({ port: 0, seed: 5, size: crashSize });
  const ids = new Set(Array.from({ length: crashSize }, (_, ordinal) => String(sim.state.project(ordinal).id)));
  const pages = Math.ceil(crashSize / 10);
  const draw = random(Number(values.seed));
  const counts = { trials, exactlyOnce: 0, killed: 0, lost: 0, twice: 0 };
  try {
    for (let trial = 0; trial < trials; trial += 1) {
      await empty();
      const kill = { page: 1 + Math.floor(draw() * pages), phase: draw() < 0.5 ? 'arrived' : 'answered' };
      if ((await runWorker(sim, kill)).signal === 'SIGKILL') counts.killed += 1;
      const resumed = await runWorker(sim);
      if (resumed.code !== 0) throw new Error(`bench: trial ${trial}: the resumed worker exited ${resumed.code}`);
      const { rows: tables } = await pool.query(
        "SELECT tablename FROM pg_tables WHERE tablename LIKE 'plugboard\\_sink\\_%'",
      );
      const { rows } = await pool.query(`SELECT key, writes FROM "${tables[0].tablename}"`);
      const lost = [...ids].filter((id) => !rows.some((row) => row.key === id)).length;
      const twice = rows.filter((row) => row.writes !== 1).length;
      counts.lost += lost;
      counts.twice += twice;
      if (lost === 0 && twice === 0 && rows.length === ids.size) counts.exactlyOnce += 1;
    }
  } finally {
    await sim.close();
  }
  return counts;
}

async function speed() {
  const sim = await startDescriptSimulator({ port: 0, seed: 5, size });
  const dir = await mkdtemp(join(tmpdir(), 'plugboard-sink-bench-'));
  const rates = { postgres: [], jsonl: [] };
  try {
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['postgres', 'jsonl'] : ['jsonl', 'postgres'];
      for (const sink of order) {
        await empty();
        const out = join(dir, `round-${round}.jsonl`);
        const args = [child, '--postgres', url, '--base-url', sim.url, '--token', sim.token, '--limit', String(page)];
        const result = await runChild([...args, '--sink', sink, '--out', out], { name: `the ${sink} read` });
        if (result.records !== size) throw new Error(`bench: the ${sink} read brought ${result.records} of ${size}`);
        rates[sink].push(result.records / (result.ms / 1000));
      }
    }
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
  return { postgres: median(rates.postgres), jsonl: median(rates.jsonl) };
}

try {
  const counts = await crashTrials();
  console.log(
    `crash trials: ${counts.trials} (${crashSize} projects, killed in ${counts.killed}): exactly once in ${counts.exactlyOnce}; records lost ${counts.lost}, written twice ${counts.twice}`,
  );
  const rates = await speed();
  const relative = ratio(rates.postgres, rates.jsonl);
  console.log(
    `records/s (${thousands(size)} projects, ${page} a page, median of ${rounds}): exactly-once sink ${thousands(rates.postgres)}, JSON lines ${thousands(rates.jsonl)} (${times(relative)})`,
  );
  const met = counts.exactlyOnce === counts.trials && relative >= 0.8;
  console.log(met ? 'met' : 'NOT MET (target: exactly once in every trial, at least 0.80x)');
  console.log(
    JSON.stringify({
      ...counts,
      size,
      page,
      rounds,
      sinkRecordsPerSecond: rates.postgres,
      jsonlRecordsPerSecond: rates.jsonl,
      ratio: relative,
      met,
    }),
  );
} finally {
  await pool.end();
  await server.stop();
}
