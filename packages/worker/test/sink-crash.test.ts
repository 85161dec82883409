import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type DescriptSource, startDescriptSource } from './support/descript-source.js';
import { migratedDatabase } from './support/migrated.js';
import { startPageProxy } from './support/page-proxy.mjs';
import { emptyWithSinks, sinkRows } from './support/sinks.js';

/**
 * Crashes for real: a worker process reads the Descript simulator's drive into the sink and is
 * killed with SIGKILL at an instant drawn from the page requests the provider's side counted
 * (as the nth arrives, or once its answer went out), then started again until the read ends.
 * Every project must be in its table exactly once, written once, in every trial. Runs the built
 * package (dist): build it first.
 */

const TRIALS = 25;
const SIZE = 95;
const PAGES = 10;
const SEED = 20261127;
const child = join(import.meta.dirname, 'support', 'sink-child.mjs');
const db = migratedDatabase();
let source: DescriptSource;
beforeAll(async () => {
  source = await startDescriptSource(SIZE);
});
afterAll(async () => {
  await source?.close();
});

/** mulberry32: the kill instants are drawn from a seed, so a failing trial can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function ended(worker: ChildProcess): Promise<Ending> {
  let stderr = '';
  worker.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  return new Promise((resolve) => worker.once('exit', (code, signal) => resolve({ code, signal, stderr })));
}

/** One worker run through a proxy that kills it at the `kill` instant, if it gets there. */
async function runWorker(kill?: { page: number; phase: 'arrived' | 'answered' }): Promise<Ending> {
  let worker: ChildProcess | undefined;
  const proxy = await startPageProxy(source.sim.url, (count, phase) => {
    if (kill && count === kill.page && phase === kill.phase) worker?.kill('SIGKILL');
  });
  try {
    const args = ['--postgres', db.url, '--base-url', proxy.url, '--token', source.sim.token];
    worker = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    return await ended(worker);
  } finally {
    await proxy.close();
  }
}

test(`a worker killed at ${TRIALS} random instants and resumed lands every record exactly once`, {
  timeout: 300_000,
}, async () => {
  const draw = random(SEED);
  const projects = [...source.projects().keys()].sort();
  let killed = 0;
  for (let trial = 0; trial < TRIALS; trial += 1) {
    await emptyWithSinks(db);
    const kill = { page: 1 + Math.floor(draw() * PAGES), phase: draw() < 0.5 ? 'arrived' : 'answered' } as const;
    const first = await runWorker(kill);
    if (first.signal === 'SIGKILL') killed += 1;
    else expect(first, `trial ${trial}`).toMatchObject({ code: 0 });
    const resumed = await runWorker();
    expect(resumed, `trial ${trial} resumed: ${resumed.stderr}`).toMatchObject({ code: 0 });
    const { rows } = await db.pools[0].query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'plugboard\\_sink\\_%'",
    );
    expect(rows, `trial ${trial}`).toHaveLength(1);
    const landed = await sinkRows(db.pools[0], rows[0]!.name);
    expect(
      landed.map((row) => row.key),
      `trial ${trial} (${JSON.stringify(kill)})`,
    ).toEqual(projects);
    expect(
      landed.filter((row) => row.writes !== 1),
      `trial ${trial} written twice`,
    ).toEqual([]);
  }
  // Most instants fall inside the read; the last page's answer may come after the worker finished.
  expect(killed).toBeGreaterThan(TRIALS / 2);
});
