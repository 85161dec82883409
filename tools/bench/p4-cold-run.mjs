#!/usr/bin/env node
// P4, a cold `plugboard run`: the whole CLI process (node packages/cli/dist/main.js run
// descript status.get --base-url URL, the credential in PLUGBOARD_CREDENTIAL) against the
// Descript simulator (a child process), beside a fresh Node process making the same GET
// with fetch and printing the JSON. The two are interleaved (A B A B ..., one uncounted
// warm-up each first, so the file cache is warm for both); each run's wall time is from
// spawn to exit. Prints the median of each and the ratio. Target: at most 2x. Not a test.
//
//   ./pbw build && node tools/bench/p4-cold-run.mjs [--runs 11]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { builtPath, median, positiveInteger, ratio, round1, round2, startDescriptSimulator, times } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '11' } } });
const runs = positiveInteger('runs', values.runs);
const cli = builtPath('packages/cli/dist/main.js');

// The plain contender: one GET with fetch, the answer printed as one JSON line.
const FETCH_ONCE = `
const response = await fetch(new URL('status', process.argv[1].replace(/\\/*$/, '/')), {
  headers: { accept: 'application/json', authorization: 'Bearer ' + process.env.PLUGBOARD_CREDENTIAL },
});
if (response.status !== 200) throw new Error('status ' + response.status);
process.stdout.write(JSON.stringify(await response.json()) + '\\n');
`;

/** Runs a process to its end; resolves with its wall time in ms and its stdout. */
function timed(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => void (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk) => void (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`bench: node ${args.slice(0, 4).join(' ')} exited with ${code}\n${stderr}`));
      resolve({ ms, stdout });
    });
  });
}

const simulator = await startDescriptSimulator();
const env = { ...process.env, PLUGBOARD_CREDENTIAL: simulator.token };
const contenders = [
  { name: 'plugboard', label: 'plugboard run descript status.get', args: [cli, 'run', 'descript', 'status.get', '--base-url', simulator.url] },
  { name: 'fetch', label: 'node, one fetch', args: ['--input-type=module', '-e', FETCH_ONCE, simulator.url] },
];
console.log(`bench: P4, cold whole-process runs against the Descript simulator, ${runs} runs each, interleaved, Node ${process.versions.node}`);

const wall = Object.fromEntries(contenders.map((contender) => [contender.name, []]));
try {
  for (const contender of contenders) {
    // Warm-up, not counted; also checks that both print the same drive status.
    const { stdout } = await timed(contender.args, env);
    const record = JSON.parse(stdout.trim().split('\n').pop());
    if (typeof record.drive_id !== 'string') throw new Error(`bench: ${contender.name} printed no drive status: ${stdout}`);
  }
  for (let run = 0; run < runs; run += 1) {
    const order = run % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) wall[contender.name].push((await timed(contender.args, env)).ms);
  }
} finally {
  await simulator.stop();
}

const ms = (value) => `${value.toFixed(0)} ms`;
for (const contender of contenders) console.log(`bench: ${contender.label}: ${wall[contender.name].map(ms).join(', ')}`);
const plugboard = median(wall.plugboard);
const fetchMs = median(wall.fetch);
const factor = ratio(plugboard, fetchMs);
console.log(`bench: median wall: plugboard run ${ms(plugboard)}, node + fetch ${ms(fetchMs)}; ratio ${times(factor)} (target <= 2.00x): ${factor <= 2 ? 'yes' : 'NO'}`);
console.log(
  JSON.stringify({
    bench: 'p4-cold-run',
    runs,
    node: process.versions.node,
    target: 2,
    meetsTarget: factor <= 2,
    plugboardMedianMs: round1(plugboard),
    fetchMedianMs: round1(fetchMs),
    ratio: round2(factor),
    plugboardMaxMs: round1(Math.max(...wall.plugboard)),
    fetchMaxMs: round1(Math.max(...wall.fetch)),
  }),
);
