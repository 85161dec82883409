#!/usr/bin/env node
// A worker's latency on an idle queue, its connector isolated (`plugboard worker --plugins`) and
// in process (`--connector`). Not a test.
//
// - per run: one `plugboard worker` process at a time, the Descript connector isolated or in
//   process, takes `status.get` (one GET) runs submitted one after another, each followed to its
//   end (`submitRun({ follow })`), after `--warmup` runs. Rounds interleave the two (A B A B ...);
//   the ratio of the median times a run isolated to in process. Target: at most 1.2x.
// - submit to first request: for the same runs, the time from calling `submitRun` to the first
//   request reaching a counting proxy on 127.0.0.1 in front of the Descript simulator (this
//   process's clock on both ends), p50 and p95 over every round. Target: p50 under 50 ms.
//
//   ./pbw build && node tools/bench/worker-latency.mjs [--runs 50] [--rounds 3] [--warmup 10]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { descript } from '@plugboard/connector-descript';
import {
  built,
  builtPath,
  forwarder,
  importTypeStripped,
  median,
  positiveInteger,
  ratio,
  root,
  round1,
  round2,
  startDescriptSimulator,
  startRedis,
  times,
} from './lib.mjs';

const RATIO_LIMIT = 1.2;
const FIRST_REQUEST_LIMIT_MS = 50;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '10' },
  },
});
const runs = positiveInteger('runs', values.runs);
const rounds = positiveInteger('rounds', values.rounds);
const warmup = positiveInteger('warmup', values.warmup);

const worker = await built('packages/worker/dist/index.js');
const cli = builtPath('packages/cli/dist/main.js');
const { startPostgres } = await importTypeStripped('packages/worker/test/support/postgres.ts');

/** A pass-through proxy on 127.0.0.1 that notes when each request arrived. */
async function countingProxy(target) {
  const upstream = new URL(target);
  const forward = forwarder(target);
  const arrivals = [];
  const server = createServer((incoming, answer) => {
    arrivals.push(performance.now());
    forward(incoming, answer);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}${upstream.pathname}`,
    firstAfter: (time) => arrivals.find((arrival) => arrival >= time),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** `plugboard worker` in a process of its own, ready once it says so. */
async function startCliWorker(args, { redis, postgres, token }) {
  const argv = [cli, 'worker', '--redis', redis, '--postgres', postgres, ...args];
  const child = spawn(process.execPath, argv, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PLUGBOARD_CREDENTIAL: token },
  });
  let stderr = '';
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('worker ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`bench: a worker exited (${code}) before it was ready\n${stderr}`)));
  });
  return async () => {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
}

let sequence = 0;
/** One `status.get` run, submitted and followed to its end: its time, and the time to its first request. */
async function oneRun({ redis, pool, proxy }) {
  sequence += 1;
  const started = performance.now();
  const { run } = await worker.submitRun({
    redis,
    postgres: pool,
    connectors: [descript],
    connector: 'descript',
    action: 'status.get',
    input: {},
    // A key of its own: each run is a new one, not the run already done.
    idempotencyKey: `latency-${sequence}`,
    connection: { id: 'drive-1', baseUrl: proxy.url },
    follow: {},
  });
  const ended = performance.now();
  if (run?.status !== 'succeeded') throw new Error(`bench: a run ended ${run?.status}`);
  return { runMs: ended - started, firstRequestMs: proxy.firstAfter(started) - started };
}

const percentile = (list, share) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * share))];

const sim = await startDescriptSimulator({ size: 10, seed: 1 });
const proxy = await countingProxy(sim.url);
const redis = await startRedis();
const server = await startPostgres();
const url = await server.database();
await worker.migrate(url);
const { default: pg } = await import(join(root, 'packages/worker/node_modules/pg/lib/index.js'));
const pool = new pg.Pool({ connectionString: url });
// The Descript connector as a plugin folder holds it.
const folder = await mkdtemp(join(tmpdir(), 'plugboard-bench-latency-'));
await mkdir(join(folder, 'node_modules', '@plugboard'), { recursive: true });
await symlink(join(root, 'connectors', 'descript'), join(folder, 'node_modules', '@plugboard', 'connector-descript'));
const modes = { 'in-process': ['--connector', join(root, 'connectors', 'descript')], isolated: ['--plugins', folder] };
const spent = { 'in-process': { run: [], first: [] }, isolated: { run: [], first: [] } };
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const [mode, args] of Object.entries(modes)) {
      const stop = await startCliWorker(args, { redis: redis.url, postgres: url, token: sim.token });
      try {
        for (let index = 0; index < warmup; index += 1) await oneRun({ redis: redis.url, pool, proxy });
        for (let index = 0; index < runs; index += 1) {
          const { runMs, firstRequestMs } = await oneRun({ redis: redis.url, pool, proxy });
          spent[mode].run.push(runMs);
          spent[mode].first.push(firstRequestMs);
        }
      } finally {
        await stop();
      }
    }
  }
} finally {
  await pool.end();
  proxy.close();
  await sim.stop();
  await redis.stop();
  await server.stop();
  await rm(folder, { recursive: true, force: true });
}

const runRatio = ratio(median(spent.isolated.run), median(spent['in-process'].run));
for (const mode of Object.keys(modes)) {
  const { run, first } = spent[mode];
  console.log(
    `bench: ${mode}, ${run.length} status.get runs on an idle queue: median ${round1(median(run))} ms a run; submit to first request p50 ${round1(median(first))} ms, p95 ${round1(percentile(first, 0.95))} ms`,
  );
}
const firstP50 = median(spent.isolated.first);
console.log(
  `bench: isolated / in-process per run: ${times(runRatio)} (target ${RATIO_LIMIT}x: ${runRatio <= RATIO_LIMIT ? 'met' : 'not met'}); isolated submit to first request p50 ${round1(firstP50)} ms (target under ${FIRST_REQUEST_LIMIT_MS} ms: ${firstP50 < FIRST_REQUEST_LIMIT_MS ? 'met' : 'not met'})`,
);
console.log(
  JSON.stringify({
    bench: 'worker-latency',
    runs,
    rounds,
    warmup,
    ratio: round2(runRatio),
    ...Object.fromEntries(
      Object.entries(spent).map(([mode, { run, first }]) => [
        mode,
        {
          runMs: round1(median(run)),
          firstRequestP50Ms: round1(median(first)),
          firstRequestP95Ms: round1(percentile(first, 0.95)),
        },
      ]),
    ),
  }),
);
