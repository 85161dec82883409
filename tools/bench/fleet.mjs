#!/usr/bin/env node
// A fleet of worker processes reading into the exactly-once sink: the Descript simulator (in a
// child process) behind a proxy adding `--latency` ms to every page, `--connections` incremental
// reads of `--size` projects each (100 a page), each on a connection of its own, submitted to the
// run queue and taken by 1, 2 and 4 worker processes (packages/worker/test/support/fleet-worker.mjs,
// the built package with `sink: 'postgres'`, one read at a time each). Prints records/s for each
// count and the ratio of 4 workers to 1. Target: 3x while the provider's budget does not bind.
// Not a test.
//
//   ./pbw build && node tools/bench/fleet.mjs [--connections 8] [--size 1000] [--latency 20] [--workers 1,2,4]
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { descript } from '@plugboard/connector-descript';
import {
  built,
  importTypeStripped,
  integerList,
  positiveInteger,
  ratio,
  root,
  startDescriptSimulator,
  startRedis,
  thousands,
  times,
} from './lib.mjs';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '8' },
    size: { type: 'string', default: '1000' },
    latency: { type: 'string', default: '20' },
    workers: { type: 'string', default: '1,2,4' },
  },
});
const connections = positiveInteger('connections', values.connections);
const size = positiveInteger('size', values.size);
const latency = positiveInteger('latency', values.latency);
const counts = integerList('workers', values.workers);

const worker = await built('packages/worker/dist/index.js');
const { startPostgres } = await importTypeStripped('packages/worker/test/support/postgres.ts');
const { default: pg } = await import(join(root, 'packages/worker/node_modules/pg/lib/index.js'));
const script = join(root, 'packages/worker/test/support/fleet-worker.mjs');

/** A pass-through proxy on 127.0.0.1 that answers each page `latency` ms later than the provider. */
async function slowProxy(target) {
  const upstream = new URL(target);
  const server = createServer((incoming, answer) => {
    const forward = () => {
      const options = { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url };
      const forwarded = request({ ...options, headers: incoming.headers }, (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      });
      forwarded.on('error', () => answer.destroy());
      incoming.pipe(forwarded);
    };
    setTimeout(forward, latency);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}${upstream.pathname}`, close: () => server.close() };
}

async function startWorkers(count, redis, url, token) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const child = fork(script, [redis, url, token, 'unused', '30000'], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
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

/** Every read of `connections` submitted, until every row says succeeded; answers records/s. */
async function measure(count, { redis, url, pool, baseUrl, token }) {
  await pool.query('TRUNCATE plugboard_runs, plugboard_checkpoints');
  const { rows } = await pool.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'plugboard\\_sink\\_%'");
  for (const { tablename } of rows) await pool.query(`DROP TABLE "${tablename}"`);
  const children = await startWorkers(count, redis, url, token);
  try {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, (_, index) =>
        worker.submitRun({
          redis,
          postgres: pool,
          connectors: [descript],
          connector: 'descript',
          action: 'projects.list',
          input: { limit: 100 },
          connection: { id: `drive-${index}`, baseUrl },
        }),
      ),
    );
    for (;;) {
      const { rows: ended } = await pool.query(
        "SELECT count(*) FILTER (WHERE status = 'succeeded') AS done, count(*) FILTER (WHERE status = 'failed') AS failed FROM plugboard_runs",
      );
      if (Number(ended[0].failed) > 0) throw new Error('bench: a read failed');
      if (Number(ended[0].done) === connections) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    return (connections * size) / seconds;
  } finally {
    await stopWorkers(children);
  }
}

const sim = await startDescriptSimulator({ size, seed: 1 });
const proxy = await slowProxy(sim.url);
const redis = await startRedis();
const server = await startPostgres();
const url = await server.database();
await worker.migrate(url);
const pool = new pg.Pool({ connectionString: url });
const rates = new Map();
try {
  for (const count of counts) {
    const rate = await measure(count, { redis: redis.url, url, pool, baseUrl: proxy.url, token: sim.token });
    rates.set(count, rate);
    console.log(`${count} worker(s): ${thousands(rate)} records/s`);
  }
  if (rates.has(1) && rates.has(4)) {
    const scale = ratio(rates.get(4), rates.get(1));
    console.log(`4 vs 1: ${times(scale)} (target 3x: ${scale >= 3 ? 'met' : 'not met'})`);
  }
} finally {
  await pool.end();
  proxy.close();
  await sim.stop();
  await redis.stop();
  await server.stop();
}
