import { createInsuranceConnector } from '@plugboard/connector-insurance';
import { type InsuranceSimulator, startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { READS_QUEUE, WRITES_QUEUE } from '../../src/index.js';
import { type RedisServer, startRedis } from '../../../sdk/test/support/redis.js';
import { type MigratedDatabase, migratedDatabase } from './migrated.js';

/**
 * A test file's fleet: a redis-server and a migrated PostgreSQL of its own, the insurance
 * simulator, and the two queues to look into. Every test starts on an empty Redis, empty tables
 * and a fresh simulator.
 */
export interface Fleet {
  redis: RedisServer;
  db: MigratedDatabase;
  simulator: InsuranceSimulator;
  queues: { reads: Queue; writes: Queue };
  /** A client of the test's own, to look at and set the server. */
  client: Redis;
}

export const insurance = createInsuranceConnector();

export function fleet(): Fleet {
  const state = { db: migratedDatabase() } as Fleet;
  beforeAll(async () => {
    const started = await startRedis();
    if (!started.server) throw new Error(started.reason);
    state.redis = started.server;
    const connection = { url: state.redis.url, maxRetriesPerRequest: null };
    state.queues = { reads: new Queue(READS_QUEUE, { connection }), writes: new Queue(WRITES_QUEUE, { connection }) };
    state.client = new Redis(state.redis.url);
  });
  beforeEach(async () => {
    await state.client.flushall();
    await state.db.empty();
    state.simulator = await startInsuranceSimulator();
  });
  afterEach(async () => {
    await state.simulator?.close();
  });
  afterAll(async () => {
    await state.queues?.reads.close();
    await state.queues?.writes.close();
    state.client?.disconnect();
    await state.redis?.stop();
  });
  return state;
}

/** The connection every run names: the simulator's base URL; its key comes from the worker's resolver. */
export function simulatorConnection(simulator: InsuranceSimulator) {
  return { id: 'conn-1', baseUrl: simulator.url };
}

/** Every run row, oldest first. */
export async function runRows(db: MigratedDatabase) {
  const { rows } = await db.pools[0].query('SELECT * FROM plugboard_runs ORDER BY created_at, id');
  return rows;
}

/**
 * A run of the insurance connector (or `connector`, the same one configured otherwise) for
 * `submitRun` on the test's fleet, over conn-1 at the simulator unless `connection` says otherwise;
 * `extra` adds the submission's other fields.
 */
export function insuranceSubmission(
  state: Fleet,
  action: string,
  input: unknown,
  {
    connection = {},
    connector = insurance,
    extra = {},
  }: {
    connection?: { id?: string; baseUrl?: string };
    connector?: typeof insurance;
    extra?: Record<string, unknown>;
  } = {},
) {
  return {
    redis: state.redis.url,
    postgres: state.db.url,
    connectors: [connector],
    connector: 'insurance',
    action,
    input,
    connection: { ...simulatorConnection(state.simulator), ...connection },
    ...extra,
  };
}
