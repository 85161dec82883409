#!/usr/bin/env node
// P4, cold `plugboard` commands as whole processes: `plugboard run descript status.get
// --base-url URL` (the credential in PLUGBOARD_CREDENTIAL) against the Descript simulator (a
// child process), `plugboard --help` and `plugboard catalogue descript insurance --out DIR`,
// beside a fresh Node process making the same GET with fetch and printing the JSON. All are
// interleaved (A B C D A ..., one uncounted warm-up each first, so the file cache is warm for
// all); each run's wall time is from spawn to exit. Prints the medians and the ratios to the
// fetch process. Targets: run at most 2x, --help at most 1.5x (catalogue: printed). Not a test.
//
//   ./pbw build && node tools/bench/p4-cold-run.mjs [--runs 11]
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      if (code !== 0)
        return reject(new Error(`bench: node ${args.slice(0, 4).join(' ')} exited with ${code}\n${stderr}`));
      resolve({ ms, stdout });
    });
  });
}

const simulator = await startDescriptSimulator();
const out = await mkdtemp(join(tmpdir(), 'plugboard-bench-catalogue-'));
const env = { ...process.env, PLUGBOARD_CREDENTIAL: simulator.token };
const drive = (stdout) => typeof JSON.parse(stdout.trim().split('\n').pop()).drive_id === 'string';
const contenders = [
  {
    name: 'plugboard',
    label: 'plugboard run descript status.get',
    target: 2,
    args: [cli, 'run', 'descript', 'status.get', '--base-url', simulator.url],
    prints: drive,
  },
  {
    name: 'help',
    label: 'plugboard --help',
    target: 1.5,
    args: [cli, '--help'],
    prints: (stdout) => stdout.includes('Usage: plugboard'),
  },
  {
    name: 'catalogue',
    label: 'plugboard catalogue descript insurance',
    args: [cli, 'catalogue', 'descript', 'insurance', '--out', out],
    prints: (stdout) => stdout.startsWith('catalogue: 2 connectors'),
  },
  {
    name: 'fetch',
    label: 'node, one fetch',
    args: ['--input-type=module', '-e', FETCH_ONCE, simulator.url],
    prints: drive,
  },
];
console.log(
  `bench: P4, cold whole-process commands (the run against the Descript simulator), ${runs} runs each, interleaved, Node ${process.versions.node}`,
);

const wall = Object.fromEntries(contenders.map((contender) => [contender.name, []]));
try {
  for (const contender of contenders) {
    // Warm-up, not counted; also checks that each printed what it should.
    const { stdout } = await timed(contender.args, env);
    if (!contender.prints(stdout))
      throw new Error(`bench: ${contender.label} printed something else: ${stdout.slice(0, 500)}`);
  }
  for (let run = 0; run < runs; run += 1) {
    const order = run % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) wall[contender.name].push((await timed(contender.args, env)).ms);
  }
} finally {
  await simulator.stop();
  await rm(out, { recursive: true, force: true });
}

const ms = (value) => `${value.toFixed(0)} ms`;
for (const contender of contenders)
  console.log(`bench: ${contender.label}: ${wall[contender.name].map(ms).join(', ')}`);
const fetchMs = median(wall.fetch);
const figures = {};
let meets = true;
for (const contender of contenders.filter((one) => one.name !== 'fetch')) {
  const medianMs = median(wall[contender.name]);
  const factor = ratio(medianMs, fetchMs);
  const ok = contender.target === undefined || factor <= contender.target;
  meets &&= ok;
  figures[contender.name] = {
    medianMs: round1(medianMs),
    maxMs: round1(Math.max(...wall[contender.name])),
    ratio: round2(factor),
  };
  const target =
    contender.target === undefined ? '' : ` (target <= ${contender.target.toFixed(2)}x): ${ok ? 'yes' : 'NO'}`;
  console.log(
    `bench: median wall: ${contender.label} ${ms(medianMs)}, node + fetch ${ms(fetchMs)}; ratio ${times(factor)}${target}`,
  );
}
console.log(
  JSON.stringify({
    bench: 'p4-cold-run',
    runs,
    node: process.versions.node,
    targets: { plugboard: 2, help: 1.5 },
    meetsTargets: meets,
    fetchMedianMs: round1(fetchMs),
    figures,
  }),
);
