#!/usr/bin/env node
// Benchmark of isolated plugin listing: from a running host (the runtime already loaded),
// `describePlugin` reads each connector of the pack in a fresh child process of its own
// (empty environment, permission model, heap limit) and answers its catalogue metadata over
// IPC; each run is a cold start of that child. Printed: the median and the max in ms per
// connector, and whether the max is within 150 ms. The in-process cold load of the same
// package is tools/bench/plugin-load.mjs. Not a test.
//
//   pnpm build && node tools/bench/isolation.mjs [--runs 11]
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { built, median, positiveInteger, root, round1 } from './lib.mjs';

const LIMIT_MS = 150;
const { values } = parseArgs({ options: { runs: { type: 'string', default: '11' } } });
const runs = positiveInteger('runs', values.runs);
const { describePlugin } = await built('packages/runtime/dist/index.js');

const results = [];
for (const name of readdirSync(join(root, 'connectors')).sort()) {
  const dir = join(root, 'connectors', name);
  const times = [];
  let described;
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    described = await describePlugin({ dir });
    times.push(performance.now() - started);
  }
  const result = { connector: described.key, actions: described.actions.length, runs, medianMs: round1(median(times)), maxMs: round1(Math.max(...times)) };
  results.push(result);
  console.log(
    `bench: ${result.connector} (${result.actions} actions), isolated cold listing over ${runs} runs: median ${result.medianMs} ms, max ${result.maxMs} ms; within ${LIMIT_MS} ms: ${result.maxMs <= LIMIT_MS ? 'yes' : 'NO'}`,
  );
}
console.log(JSON.stringify({ bench: 'isolation', limitMs: LIMIT_MS, results }));
