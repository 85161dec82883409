#!/usr/bin/env node
// Benchmark of plugin loading: cold-loads one connector package with the runtime's
// loadPlugin in a fresh Node process per run, and prints the median and the max in ms
// and whether the max is under 50 ms. The figure is loadPlugin alone: reading and checking
// the manifest, the SDK range check, importing the entry (the connector and its modules,
// first time in the process) and checking the definition. The host's own start (Node, the
// runtime and its SDK, already loaded in a running host) is printed beside it, not counted.
// Not a test.
//
//   pnpm build && node tools/bench/plugin-load.mjs [--runs 11] [--connector descript|insurance|all]
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';

const LIMIT_MS = 50;
const root = fileURLToPath(new URL('../..', import.meta.url));
const runtimeEntry = join(root, 'packages/runtime/dist/index.js');

// One measurement, in the child process: `node plugin-load.mjs --child DIR`.
if (process.argv[2] === '--child') {
  const dir = process.argv[3];
  const started = performance.now();
  const runtime = await import(pathToFileURL(runtimeEntry).href);
  const hostReady = performance.now();
  const plugin = await runtime.loadPlugin({ dir });
  const loaded = performance.now();
  process.stdout.write(
    `${JSON.stringify({ key: plugin.key, actions: plugin.connector.actions.length, loadMs: loaded - hostReady, hostStartMs: hostReady - started })}\n`,
  );
  process.exit(0);
}

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '11' }, connector: { type: 'string', default: 'all' } },
});
const runs = Math.max(1, Number(values.runs));
const run = promisify(execFile);

if (!existsSync(runtimeEntry)) {
  console.error("bench: packages/runtime/dist/index.js is missing; run 'pnpm build' first");
  process.exit(1);
}

const connectors = readdirSync(join(root, 'connectors'))
  .filter((name) => values.connector === 'all' || name === values.connector)
  .filter((name) => {
    const built = existsSync(join(root, 'connectors', name, 'dist/index.js'));
    if (!built) console.log(`bench: connectors/${name} is not built; left out`);
    return built;
  })
  .sort();
if (connectors.length === 0) {
  console.error(
    `bench: no built connector${values.connector === 'all' ? '' : ` named ${values.connector}`}; run 'pnpm build' first`,
  );
  process.exit(1);
}

const ms = (value) => `${value.toFixed(1)} ms`;
const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted.length % 2
    ? sorted[(sorted.length - 1) / 2]
    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
};

const self = fileURLToPath(import.meta.url);
const results = [];
for (const name of connectors) {
  const dir = join(root, 'connectors', name);
  const loads = [];
  const starts = [];
  let key = name;
  let actions = 0;
  for (let index = 0; index < runs; index += 1) {
    const { stdout } = await run(process.execPath, [self, '--child', dir]);
    const measured = JSON.parse(stdout);
    loads.push(measured.loadMs);
    starts.push(measured.hostStartMs);
    key = measured.key;
    actions = measured.actions;
  }
  const result = {
    connector: key,
    actions,
    runs,
    medianMs: median(loads),
    maxMs: Math.max(...loads),
    hostStartMedianMs: median(starts),
  };
  results.push(result);
  console.log(`bench: ${key} (${actions} actions), ${runs} fresh processes: ${loads.map(ms).join(', ')}`);
  console.log(
    `bench: ${key}: cold load median ${ms(result.medianMs)}, max ${ms(result.maxMs)}; under ${LIMIT_MS} ms: ${result.maxMs < LIMIT_MS ? 'yes' : 'NO'} (host start, not counted: median ${ms(result.hostStartMedianMs)})`,
  );
}
const worst = Math.max(...results.map((result) => result.maxMs));
console.log(
  JSON.stringify({
    bench: 'plugin-load',
    limitMs: LIMIT_MS,
    underLimit: worst < LIMIT_MS,
    results: results.map((result) => ({
      ...result,
      medianMs: Math.round(result.medianMs * 10) / 10,
      maxMs: Math.round(result.maxMs * 10) / 10,
      hostStartMedianMs: Math.round(result.hostStartMedianMs * 10) / 10,
    })),
  }),
);
