#!/usr/bin/env node
// A fleet of worker processes reading into the exactly-once sink, connectors isolated as a host
// runs third-party code: the Descript simulator (in a child process) answering every page
// `--latency` ms late, as a provider across a network would; `--connections` incremental
// reads of `--size` projects each (100 a page), each on a connection of its own, submitted to the
// run queue and taken by 1, 2 and 4 worker processes (tools/bench/fleet-worker.mjs: the built
// package, `sink: 'postgres'`, `plugins: DIR` with the Descript connector package, one read at a
// time each; each worker's plugin process started by warm-up reads before the clock starts).
// Prints records/s for each count, the ratio of 4 workers to 1 (target: 3x while the
// provider's budget does not bind), the CPU a page cost in each kind of process, and the Redis
// commands and PostgreSQL commits a page cost.
// Then the budget that binds: a front before the simulator (a proxy in this process,
// fleet-front.mjs) admits `--budget` requests a second (a strict sliding window, 429 past it)
// and the connector declares that budget shared by every connection through
// Redis; the reads run again on 4 workers. Prints the requests admitted, the 429s and the share
// of the budget used (target: at least 95 %, 0 429s). Not a test.
//
//   ./pbw build && node tools/bench/fleet.mjs [--connections 200] [--size 1000] [--latency 20] [--workers 1,2,4] [--budget 20] [--budget-workers 4] [--skip-budget]
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { descript } from '@plugboard/connector-descript';
import { budgetedDescriptPlugins, descriptPlugins } from './fleet-plugins.mjs';
import { startFront } from './fleet-front.mjs';
import {
  built,
  importTypeStripped,
  integerList,
  positiveInteger,
  ratio,
  root,
  round1,
  startDescriptSimulator,
  startRedis,
  thousands,
  times,
} from './lib.mjs';
import { cpuByRole, hasChild, spent } from './process-cpu.mjs';
import { roundTrips, roundTripsSince } from './round-trips.mjs';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '200' },
    size: { type: 'string', default: '1000' },
    latency: { type: 'string', default: '20' },
    workers: { type: 'string', default: '1,2,4' },
    budget: { type: 'string', default: '20' },
    'budget-workers': { type: 'string', default: '4' },
    'skip-budget': { type: 'boolean', default: false },
  },
});
const connections = positiveInteger('connections', values.connections);
const size = positiveInteger('size', values.size);
const latency = positiveInteger('latency', values.latency);
const counts = integerList('workers', values.workers);
const budget = positiveInteger('budget', values.budget);
const budgetWorkers = positiveInteger('budget-workers', values['budget-workers']);

const worker = await built('packages/worker/dist/index.js');
const { startPostgres } = await importTypeStripped('packages/worker/test/support/postgres.ts');
const { default: pg } = await import(join(root, 'packages/worker/node_modules/pg/lib/index.js'));
const script = join(root, 'tools/bench/fleet-worker.mjs');

async function startWorkers(count, { redis, url, token, plugins }) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const child = fork(script, [redis, url, token, plugins], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      await new Promise((resolve, reject) => {
        child.on('message', (message) => message.type === 'ready' && resolve());
        child.once('exit', (code) => reject(new Error(`bench: a worker exited (${code}) before it was ready`)));
      });
      return child;
    }),
  );
}

async function stopWorkers(children) {
  await Promise.all(
    children.map(async (child) => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
}

/** The kind of each process the fleet runs in, for the CPU a page costs in each. */
function roleOf(workers, sim) {
  const pids = new Set(workers.map((child) => child.pid));
  return (proc) => {
    if (proc.pid === process.pid) return 'bench (front, submit)';
    if (pids.has(proc.pid)) return 'worker';
    if (proc.cmdline.includes('plugin-process.js')) return 'plugin';
    if (proc.pid === sim.pid) return 'simulator';
    if (proc.comm === 'postgres') return 'postgres';
    if (proc.comm === 'redis-server') return 'redis';
    return undefined;
  };
}

async function clean(pool) {
  await pool.query('TRUNCATE plugboard_runs, plugboard_checkpoints');
  const { rows } = await pool.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'plugboard\\_sink\\_%'");
  for (const { tablename } of rows) await pool.query(`DROP TABLE "${tablename}"`);
}

/** A read of the connection `id`, followed to its end when `follow`. */
function read(submitter, env, id, follow) {
  return submitter.submit({
    connectors: [descript],
    connector: 'descript',
    action: 'projects.list',
    input: { limit: 100 },
    connection: { id, baseUrl: env.baseUrl },
    ...(follow ? { follow: {} } : {}),
  });
}

/** Every read submitted through one submitter, as a platform's scheduler would. */
async function submitAll(env) {
  const submitter = worker.createSubmitter({ redis: env.redis, postgres: env.pool });
  try {
    await Promise.all(Array.from({ length: connections }, (_, index) => read(submitter, env, `drive-${index}`)));
  } finally {
    await submitter.close();
  }
}

/**
 * Reads (a round of one a worker, on connections of their own) until every worker has started
 * its plugin's process: a fleet's workers live long and isolation costs a plugin's first run
 * only (worker-latency.mjs measures that run), so the clock starts on warm workers.
 */
async function warm(children, env) {
  const submitter = worker.createSubmitter({ redis: env.redis, postgres: env.pool });
  try {
    for (let round = 0; !children.every((child) => hasChild(child.pid, 'plugin-process.js')); round += 1) {
      if (round === 10) throw new Error('bench: a worker took none of 10 rounds of warm-up reads');
      await Promise.all(children.map((_, index) => read(submitter, env, `warm-${round}-${index}`, true)));
    }
  } finally {
    await submitter.close();
  }
}

/** Waits until every row says succeeded; answers when the last one ended (its row's time, so how often it looks does not count). */
async function allSucceeded(pool) {
  for (;;) {
    const { rows } = await pool.query(
      "SELECT count(*) FILTER (WHERE status = 'succeeded') AS done, count(*) FILTER (WHERE status = 'failed') AS failed, max(completed_at) AS last FROM plugboard_runs WHERE connection_id LIKE 'drive-%'",
    );
    if (Number(rows[0].failed) > 0) throw new Error('bench: a read failed');
    if (Number(rows[0].done) === connections) return rows[0].last.getTime();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Every read of `connections` submitted to `count` workers (warmed first with `warmUp`), until every row says succeeded: records/s and CPU seconds by kind. */
async function measure(count, env, { warmUp }) {
  await clean(env.pool);
  const children = await startWorkers(count, env);
  try {
    if (warmUp) await warm(children, env);
    const roles = roleOf(children, env.sim);
    const trips = await roundTrips(env.redis, env.pool);
    const before = cpuByRole(process.pid, roles);
    const started = Date.now();
    await submitAll(env);
    const seconds = ((await allSucceeded(env.pool)) - started) / 1000;
    const cpu = spent(before, cpuByRole(process.pid, roles));
    return {
      rate: (connections * size) / seconds,
      seconds,
      cpu,
      trips: await roundTripsSince(trips, env.redis, env.pool, pages),
    };
  } finally {
    await stopWorkers(children);
  }
}

function cpuLine(cpu, seconds, pages) {
  const total = [...cpu.values()].reduce((sum, value) => sum + value, 0);
  const parts = [...cpu]
    .sort((a, b) => b[1] - a[1])
    .map(([role, value]) => `${role} ${round1((value * 1000) / pages)}`);
  return `  CPU ms a page: ${parts.join(', ')}; total ${round1((total * 1000) / pages)} (${round1((total / seconds) * 100)} % of a core)`;
}

const pages = connections * Math.ceil(size / 100);
const sim = await startDescriptSimulator({ size, seed: 1, latency });
const redis = await startRedis();
const server = await startPostgres();
const url = await server.database();
await worker.migrate(url);
const pool = new pg.Pool({ connectionString: url });
const plain = await descriptPlugins();
const env = { redis: redis.url, url, pool, baseUrl: sim.url, token: sim.token, sim, plugins: plain.dir };
const rates = new Map();
try {
  for (const count of counts) {
    const { rate, seconds, cpu, trips } = await measure(count, env, { warmUp: true });
    rates.set(count, rate);
    console.log(`${count} worker(s): ${thousands(rate)} records/s (${round1(pages / seconds)} pages/s)`);
    console.log(cpuLine(cpu, seconds, pages));
    console.log(trips);
  }
  if (rates.has(1) && rates.has(4)) {
    const scale = ratio(rates.get(4), rates.get(1));
    console.log(`4 vs 1: ${times(scale)} (target 3x: ${scale >= 3 ? 'met' : 'not met'})`);
  }
  if (!values['skip-budget']) {
    const budgeted = await budgetedDescriptPlugins(budget);
    const front = await startFront(sim.url, { n: budget, periodMs: 1000 });
    try {
      // Not warmed: warm-up reads would spend the budget the front counts.
      const { seconds } = await measure(
        budgetWorkers,
        { ...env, plugins: budgeted.dir, baseUrl: front.url },
        { warmUp: false },
      );
      const window = front.window();
      const used = window.admitted / (budget * window.windows);
      console.log(
        `budget ${budget}/s shared by ${budgetWorkers} workers: ${window.admitted} admitted in ${round1(seconds)} s, ${window.rejected} 429s, ${round1(used * 100)} % of the budget used (target at least 95 %, 0 429s: ${used >= 0.95 && window.rejected === 0 ? 'met' : 'not met'})`,
      );
    } finally {
      front.close();
      await budgeted.remove();
    }
  }
} finally {
  await pool.end();
  await plain.remove();
  await sim.stop();
  await redis.stop();
  await server.stop();
}
