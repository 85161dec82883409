#!/usr/bin/env node
// Benchmark of isolated plugins against the same plugin imported into the host. Not a test.
//
// - cold load: `startPlugin` of each connector of the pack from a running host (the runtime
//   already loaded): a fresh process (empty environment, permission model, heap limit)
//   imports the connector and answers its description on its pipe. Target: at most 150 ms. An
//   empty Node process started the same way is printed beside it: the floor on this machine.
// - a 100-page read (100 records a page) and 1,000 single-request runs through the executor,
//   isolated and in-process, interleaved (A B A B ...) over rounds against one HTTP server on
//   127.0.0.1 in a process of its own; the same bench connector in both. Target: the read at most 1.2x in-process;
//   the per-run overhead is printed in microseconds.
//
//   ./pbw build && node tools/bench/isolation.mjs [--runs 11] [--rounds 7]
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { built, median, positiveInteger, ratio, root, round1, startChild, times } from './lib.mjs';

const COLD_LIMIT_MS = 150;
const READ_LIMIT = 1.2;
const PAGES = 100;
const PAGE_SIZE = 100;
const SINGLE_RUNS = 1000;
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '11' }, rounds: { type: 'string', default: '7' } },
});
const runs = positiveInteger('runs', values.runs);
const rounds = positiveInteger('rounds', values.rounds);
const { startPlugin, loadPlugin } = await built('packages/runtime/dist/index.js');
const { createTransport } = await built('packages/sdk/dist/index.js');
const { createExecutor } = await built('packages/sdk/dist/host.js');

const spawnTime = async (args) => {
  const started = performance.now();
  await new Promise((resolve, reject) =>
    spawn(process.execPath, args, { stdio: 'ignore' }).once('exit', resolve).once('error', reject),
  );
  return performance.now() - started;
};

// What any process costs here: an empty Node started and ended the same way, beside the plugins.
const empty = [];
for (let index = 0; index < runs; index += 1) empty.push(await spawnTime(['-e', '']));
console.log(
  `bench: an empty Node process, started and ended, over ${runs} runs: median ${round1(median(empty))} ms (the floor of any cold load here)`,
);

// Each connector: isolated (startPlugin until it answered) and, interleaved with it, a fresh Node
// process that only imports the same entry, with no isolation at all: what isolation itself adds.
const cold = [];
for (const name of readdirSync(join(root, 'connectors')).sort()) {
  const dir = join(root, 'connectors', name);
  const entry = join(dir, JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).plugboard.connector);
  const spent = [];
  const plain = [];
  let plugin;
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    plugin = await startPlugin({ dir });
    spent.push(performance.now() - started);
    await plugin.close();
    plain.push(
      await spawnTime(['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(entry).href)})`]),
    );
  }
  const result = {
    connector: plugin.key,
    actions: plugin.actions.length,
    runs,
    medianMs: round1(median(spent)),
    maxMs: round1(Math.max(...spent)),
    plainImportMs: round1(median(plain)),
  };
  cold.push(result);
  console.log(
    `bench: ${result.connector} (${result.actions} actions), isolated cold load over ${runs} runs: median ${result.medianMs} ms, max ${result.maxMs} ms; median within ${COLD_LIMIT_MS} ms: ${result.medianMs <= COLD_LIMIT_MS ? 'yes' : 'NO'}; a plain Node process importing it: ${result.plainImportMs} ms (isolation adds ${round1(result.medianMs - result.plainImportMs)} ms)`,
  );
}

// The provider, in a process of its own as a provider is: GET /pages?page=N answers 100 records
// and the next page; GET /ping a small object.
const PROVIDER = `
import { createServer } from 'node:http';
const records = Array.from({ length: ${PAGE_SIZE} }, (_, index) => ({ id: 'r' + index, name: 'Record ' + index, updated_at: '2026-11-01T00:00:00Z' }));
const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const page = Number(url.searchParams.get('page') ?? 0);
  const body = url.pathname === '/ping' ? { ok: true } : { data: records, ...(page + 1 < ${PAGES} ? { next: page + 1 } : {}) };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));
`;
const provider = await startChild(['--input-type=module', '-e', PROVIDER], { name: 'the bench provider' });
const baseUrl = provider.info.url;

// The bench connector, as a plugin package: zod and the SDK beside it, as npm installs peers.
const folder = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-bench-isolation-')));
const modules = join(folder, 'node_modules');
const pkg = join(modules, 'bench-connector');
await mkdir(join(modules, '@plugboard'), { recursive: true });
await mkdir(pkg);
await symlink(
  await realpath(join(root, 'packages', 'runtime', 'node_modules', '@plugboard', 'sdk')),
  join(modules, '@plugboard', 'sdk'),
);
await symlink(await realpath(join(root, 'packages', 'sdk', 'node_modules', 'zod')), join(modules, 'zod'));
await writeFile(
  join(pkg, 'package.json'),
  JSON.stringify({
    name: 'bench-connector',
    version: '1.0.0',
    type: 'module',
    plugboard: { connector: './index.js', sdk: '^0.1.0' },
  }),
);
await writeFile(
  join(pkg, 'index.js'),
  `import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const Row = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'BenchRow' });
export default defineConnector({
  key: 'bench', name: 'Bench', version: '1.0.0', vendor: null, category: 'developer', status: 'beta', summary: 'Pages and pings.',
  auth: bearerToken(), baseUrl: 'http://127.0.0.1:9',
  actions: [
    defineAction({ key: 'rows.list', label: 'Rows', direction: 'source', entity: Row, input: z.object({}),
      async *read(ctx) { for (let page = 0; page !== undefined; ) { const body = await ctx.http.get('/pages', { query: { page } }); yield { records: body.data }; page = body.next; } } }),
    defineAction({ key: 'ping.get', label: 'Ping', direction: 'source', entity: z.object({ ok: z.boolean() }).meta({ id: 'BenchPing' }), input: z.object({}),
      async *read(ctx) { yield { records: [await ctx.http.get('/ping')] }; } }),
  ],
});
`,
);

const isolated = await startPlugin({ name: 'bench-connector', from: folder });
const local = await loadPlugin({ name: 'bench-connector', from: folder });
const transport = createTransport();
const common = {
  resolveConnection: (id) => ({ id, baseUrl }),
  resolveCredential: () => 'bench-token',
  log: () => undefined,
};
const contenders = {
  'in-process': createExecutor({ ...common, connectors: [local.connector], transport }),
  isolated: createExecutor({ ...common, plugins: [{ package: isolated.package, runner: isolated.runner }] }),
};

async function read(executor) {
  let count = 0;
  await executor.execute({
    connectorKey: 'bench',
    action: 'rows.list',
    connectionId: 'c',
    onPage: (page) => void (count += page.records.length),
  });
  if (count !== PAGES * PAGE_SIZE) throw new Error(`read ${count} records`);
}
async function singles(executor) {
  for (let index = 0; index < SINGLE_RUNS; index += 1)
    await executor.execute({ connectorKey: 'bench', action: 'ping.get', connectionId: 'c', onPage: () => undefined });
}

const spent = { read: { 'in-process': [], isolated: [] }, singles: { 'in-process': [], isolated: [] } };
for (const [_name, executor] of Object.entries(contenders)) {
  await read(executor); // warm both: pools, JIT
  await singles(executor);
}
for (let round = 0; round < rounds; round += 1) {
  for (const [name, executor] of Object.entries(contenders)) {
    let started = performance.now();
    await read(executor);
    spent.read[name].push(performance.now() - started);
    started = performance.now();
    await singles(executor);
    spent.singles[name].push(performance.now() - started);
  }
}
await isolated.close();
await transport.close();
await provider.stop();
await rm(folder, { recursive: true, force: true });

const readRatio = ratio(median(spent.read.isolated), median(spent.read['in-process']));
const perRun = {
  'in-process': (median(spent.singles['in-process']) * 1000) / SINGLE_RUNS,
  isolated: (median(spent.singles.isolated) * 1000) / SINGLE_RUNS,
};
console.log(
  `bench: ${PAGES}-page read (${PAGES * PAGE_SIZE} records), median of ${rounds} rounds: in-process ${round1(median(spent.read['in-process']))} ms, isolated ${round1(median(spent.read.isolated))} ms, ${times(readRatio)}; within ${READ_LIMIT}x: ${readRatio <= READ_LIMIT ? 'yes' : 'NO'}`,
);
console.log(
  `bench: ${SINGLE_RUNS} single-request runs, median of ${rounds} rounds: in-process ${Math.round(perRun['in-process'])} µs a run, isolated ${Math.round(perRun.isolated)} µs a run; isolation adds ${Math.round(perRun.isolated - perRun['in-process'])} µs a run`,
);
console.log(
  JSON.stringify({
    bench: 'isolation',
    cold: { limitMs: COLD_LIMIT_MS, emptyNodeMs: round1(median(empty)), results: cold },
    read: {
      pages: PAGES,
      records: PAGES * PAGE_SIZE,
      rounds,
      inProcessMs: round1(median(spent.read['in-process'])),
      isolatedMs: round1(median(spent.read.isolated)),
      ratio: round1(readRatio * 100) / 100,
    },
    singles: {
      runs: SINGLE_RUNS,
      rounds,
      inProcessUs: Math.round(perRun['in-process']),
      isolatedUs: Math.round(perRun.isolated),
    },
  }),
);
