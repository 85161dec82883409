#!/usr/bin/env node
// Benchmark of strict replay: replays every recorded fixture of the pack's connectors (Descript
// and insurance) the way the standard suite does, and prints per connector the real time, the
// time the replay's clock was driven on (rate budget windows, Retry-After pauses, retry
// backoff: waited in driven time, not real), and the budget waits the SDK reported with their
// summed length. On a build whose replay waits on the system clock, `driven` reads n/a and the
// budget waits are real. Not a test.
//
//   pnpm build && node tools/bench/replay.mjs [--rounds 3]
import { subscribe } from 'node:diagnostics_channel';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { built, median, root } from './lib.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);

const { replayScenario } = await built('packages/testing/dist/index.js');
const connectors = [
  ['descript', (await built('connectors/descript/dist/index.js')).default],
  ['insurance', (await built('connectors/insurance/dist/index.js')).default],
];

let budgetWaits = 0;
let budgetWaitMs = 0;
subscribe('plugboard:http:budget:wait', (message) => {
  budgetWaits += 1;
  budgetWaitMs += message.waitMs;
});

for (const [key, connector] of connectors) {
  const fixturesDir = join(root, 'connectors', key, 'test', 'fixtures');
  const names = readdirSync(fixturesDir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length));
  const real = [];
  let driven;
  let calls = 0;
  let skipped = 0;
  for (let round = 0; round < rounds; round += 1) {
    budgetWaits = 0;
    budgetWaitMs = 0;
    calls = 0;
    driven = 0;
    const started = performance.now();
    skipped = 0;
    for (const name of names) {
      // A scenario whose input the suite fixes in its test file (a time relative to now) does not replay by name alone.
      const result = await replayScenario({ connector, scenario: name, fixturesDir }).catch(() => undefined);
      if (!result) {
        skipped += 1;
        continue;
      }
      calls += result.calls;
      driven = result.drivenMs === undefined || driven === undefined ? undefined : driven + result.drivenMs;
    }
    real.push(performance.now() - started);
  }
  console.log(
    `${key}: ${names.length - skipped} fixtures (${skipped} not replayable by name alone), ${calls} calls; real ${Math.round(median(real))} ms (median of ${rounds}); driven ${driven === undefined ? 'n/a' : `${driven} ms`}; budget waits ${budgetWaits} (${Math.round(budgetWaitMs)} ms)`,
  );
}
