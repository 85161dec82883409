import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { descript } from '@plugboard/connector-descript';
import { streamKey } from '@plugboard/sdk/host';
import { type InsuranceSimulator, startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postgresSink, postgresStores, submitRun } from '../src/index.js';
import { forkWorker, type WorkerChild } from './support/children.js';
import { lastCursor } from './support/cursor.js';
import { type DescriptSource, startDescriptSource } from './support/descript-source.js';
import { type DurableRedis, startDurableRedis } from './support/durable-redis.js';
import { insurance } from './support/fleet.js';
import { type GateProxy, startGateProxy } from './support/gate-proxy.js';
import { migratedDatabase } from './support/migrated.js';
import { sinkRows } from './support/sinks.js';

/**
 * The fleet under faults, for real: four worker processes (the built package, `sink: 'postgres'`)
 * on a Redis that keeps its data on disk and a PostgreSQL, reading the Descript simulator's drive
 * over several connections into the sink and sending keyed billable writes to the insurance
 * simulator. One worker is killed (SIGKILL) during reads and one during a billable write, each at
 * an instant a counting proxy in front of the provider saw, and Redis is restarted once mid-load.
 * Every record lands exactly once, every checkpoint ends at the provider's last cursor, every
 * write is sent once (the one whose worker was killed stays `running` for an operator, or fails
 * typed as `worker_lost` when it had not started: nothing sent) and no run is lost. Build the package first.
 */

const SIZE = 40;
const CONNECTIONS = ['drive-a', 'drive-b', 'drive-c', 'drive-d'];
const LIMITS = [5, 8];
const WRITES = 6;
const LOCK_MS = 2_000;
const KILL_READ_AT = 8;
const RESTART_REDIS_AT = 20;
const KILL_WRITE_AT = 2;
const script = join(import.meta.dirname, 'support', 'fleet-worker.mjs');

const db = migratedDatabase();
let redis: DurableRedis;
let source: DescriptSource;
let insurer: InsuranceSimulator;
beforeAll(async () => {
  redis = await startDurableRedis();
  source = await startDescriptSource(SIZE);
  insurer = await startInsuranceSimulator();
});
afterAll(async () => {
  await insurer?.close();
  await source?.close();
  await redis?.stop();
});

const children: WorkerChild[] = [];
/** What the faults did: the runs the killed workers held (a write so held is left for an operator) and the restarts. */
const faults = { killedReads: [] as string[], killedWrites: [] as string[], restarts: 0 };

/** Workers still starting (a killed one's replacement): the test stops each once it started, never leaves one running. */
const starting: Promise<unknown>[] = [];

function startChild(): Promise<WorkerChild> {
  const args = [redis.url, db.url, source.sim.token, insurer.apiKey, String(LOCK_MS)];
  const started = forkWorker(script, args).then((child) => {
    children.push(child);
    return child;
  });
  starting.push(started.catch(() => undefined));
  return started;
}

/** The run a live worker holds now on one queue (reads are `run-`, keyed writes `key-`): its last such message was `active`. */
function held(child: WorkerChild, prefix: 'run-' | 'key-'): string | undefined {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return undefined;
  const last = child.messages.filter((message) => message.id?.startsWith(prefix)).at(-1);
  return last?.type === 'active' ? last.id : undefined;
}

/** Kills a worker holding a run of that queue, waits for its end, and starts another in its place. */
async function killHolder(prefix: 'run-' | 'key-'): Promise<void> {
  const child = children.find((each) => held(each, prefix));
  if (!child) return;
  // A worker process takes reads and writes: whatever it held is what the kill interrupted.
  const [read, write] = [held(child, 'run-'), held(child, 'key-')];
  const exited = once(child.process, 'exit');
  child.process.kill('SIGKILL');
  await exited;
  if (read) faults.killedReads.push(read);
  if (write) faults.killedWrites.push(write);
  void startChild();
}

const pageAsked = (incoming: IncomingMessage) => incoming.method === 'GET' && /\/projects\b/.test(incoming.url ?? '');
const policyPosted = (incoming: IncomingMessage) => incoming.method === 'POST' && /policies/.test(incoming.url ?? '');

function streamOf(connectionId: string, limit: number) {
  return streamKey({
    connector: 'descript',
    action: 'projects.list',
    connectionId,
    environment: 'sandbox',
    input: { limit },
  });
}

async function submitLoad(drive: GateProxy, insurerProxy: GateProxy): Promise<{ reads: string[]; writes: string[] }> {
  const common = { redis: redis.url, postgres: db.pools[0], connectors: [descript, insurance] };
  const reads = CONNECTIONS.flatMap((id) =>
    LIMITS.map((limit) =>
      submitRun({
        ...common,
        connector: 'descript',
        action: 'projects.list',
        input: { limit },
        connection: { id, baseUrl: drive.url },
      }),
    ),
  );
  const writes = Array.from({ length: WRITES }, (_, index) =>
    submitRun({
      ...common,
      connector: 'insurance',
      action: 'travel_policies.create',
      input: { traveller: `traveller-${index}` },
      connection: { id: 'insurer-1', baseUrl: insurerProxy.url },
      idempotencyKey: `policy-${index}`,
    }),
  );
  return {
    reads: (await Promise.all(reads)).map((run) => run.id),
    writes: (await Promise.all(writes)).map((run) => run.id),
  };
}

/** Each run's status, and its error's code after a colon when it failed (`failed:worker_lost`). */
async function rowStatuses(): Promise<Record<string, string>> {
  const { rows } = await db.pools[0].query<{ id: string; status: string; error_code: string | null }>(
    'SELECT id, status, error_code FROM plugboard_runs',
  );
  return Object.fromEntries(
    rows.map((row) => [row.id, row.error_code ? `${row.status}:${row.error_code}` : row.status]),
  );
}

/**
 * Whether a write ended as a kill may leave it: failed typed when it had not started (nothing
 * sent, checked below), whichever worker took it (a run taken just before the kill may not have
 * told the test yet); or left `running` for an operator when the killed worker held it.
 */
const leftByKill = (id: string, status: string | undefined) =>
  status === 'failed:worker_lost' || (status === 'running' && faults.killedWrites.includes(id));

test('four workers, two killed and Redis restarted mid-load: every record once, every write once, no run lost', {
  timeout: 240_000,
}, async () => {
  const drive = await startGateProxy(source.sim.url, pageAsked, async (count) => {
    if (count === KILL_READ_AT) await killHolder('run-');
    if (count === RESTART_REDIS_AT) {
      await redis.restart();
      faults.restarts += 1;
    }
  });
  const insurerProxy = await startGateProxy(insurer.url, policyPosted, async (count) => {
    // The worker dies with its write on the way: the provider may get it (once) or not.
    if (count === KILL_WRITE_AT) await killHolder('key-');
  });
  try {
    await Promise.all(Array.from({ length: 4 }, () => startChild()));
    const { reads, writes } = await submitLoad(drive, insurerProxy);
    await expect
      .poll(
        async () => {
          const statuses = await rowStatuses();
          const left = writes.filter((id) => leftByKill(id, statuses[id]));
          const open = [...reads, ...writes].filter((id) => statuses[id] !== 'succeeded' && !left.includes(id));
          // Named with their status and the faults so far, for a failure to say what stayed open.
          return open.map((id) => `${id} ${statuses[id]} (${JSON.stringify(faults)})`);
        },
        { timeout: 60_000, interval: 250 },
      )
      .toEqual([]);
    expect(faults.killedReads.length).toBeGreaterThanOrEqual(1);
    expect(faults.killedWrites.length).toBeGreaterThanOrEqual(1);
    expect(faults.restarts).toBe(1);

    const projects = [...source.projects().keys()].sort();
    const sink = postgresSink(db.pools[0]);
    const stores = postgresStores(db.pools[1]);
    for (const id of CONNECTIONS)
      for (const limit of LIMITS) {
        const stream = streamOf(id, limit);
        const landed = await sinkRows(db.pools[0], sink.table(stream));
        expect(
          landed.map((row) => row.key),
          stream,
        ).toEqual(projects);
        expect(
          landed.filter((row) => row.writes !== 1),
          `${stream} written twice`,
        ).toEqual([]);
        expect(await stores.checkpoints.get(stream), stream).toEqual(lastCursor(source.projects()));
      }

    // Every billable write sent once; a killed one at most once and left `running` for an operator, or never sent and failed `worker_lost`.
    const created = insurer.requests
      .filter((request) => request.method === 'POST' && request.status < 300)
      .map((request) => (request.body as { traveller: string }).traveller);
    const statuses = await rowStatuses();
    writes.forEach((id, index) => {
      const sent = created.filter((traveller) => traveller === `traveller-${index}`).length;
      if (statuses[id] === 'failed:worker_lost') expect(sent, id).toBe(0);
      else if (faults.killedWrites.includes(id)) expect(sent, id).toBeLessThanOrEqual(1);
      else expect([statuses[id], sent], id).toEqual(['succeeded', 1]);
    });
    const { rows } = await db.pools[0].query<{ record: { state: string } }>(
      'SELECT record FROM plugboard_idempotency_keys',
    );
    // A worker killed before it claimed the key leaves no key (and sent nothing); never one `running` without its run.
    const left = writes.filter((id) => statuses[id] === 'running');
    expect(rows.filter((row) => row.record.state === 'running').length).toBeLessThanOrEqual(left.length);
  } finally {
    await Promise.all(starting);
    await Promise.all(children.map((child) => child.stop()));
    await drive.close();
    await insurerProxy.close();
  }
});
