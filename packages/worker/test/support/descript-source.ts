import { createTransport, type Transport } from '@plugboard/sdk';
import { type ExecutorSetup, setUpExecutor } from '@plugboard/sdk/host';
import { descript } from '@plugboard/connector-descript';
import { type DescriptSimulator, startDescriptSimulator } from '@plugboard/simulator-descript';
import type pg from 'pg';
import { postgresStores } from '../../src/index.js';

/**
 * The Descript simulator on a free port of 127.0.0.1 with a drive of `size` projects, and the
 * executor set up to read it with the Descript connector, its checkpoints in PostgreSQL.
 */
export interface DescriptSource {
  sim: DescriptSimulator;
  transport: Transport;
  /** The executor on `pool`'s stores, reading the simulator or `baseUrl` (a proxy in front of it). */
  setup(pool: pg.Pool, baseUrl?: string): ExecutorSetup;
  /** Every project of the drive as the provider keeps it, by id: what a full read must land. */
  projects(): Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export const CONNECTION = 'descript-drive';
/** projects.list from the start, 10 projects a page. */
export const READ = {
  connectorKey: 'descript',
  action: 'projects.list',
  connectionId: CONNECTION,
  input: { limit: 10 },
};

export async function startDescriptSource(size: number): Promise<DescriptSource> {
  const sim = await startDescriptSimulator({ port: 0, seed: 5, size });
  const transport = createTransport();
  return {
    sim,
    transport,
    setup: (pool, baseUrl = sim.url) =>
      setUpExecutor({
        connectors: [descript],
        resolveConnection: (id) => ({ id, baseUrl }),
        resolveCredential: () => sim.token,
        stores: postgresStores(pool),
        transport,
        retry: { retries: 0 },
      }),
    projects() {
      const all = new Map<string, Record<string, unknown>>();
      for (let ordinal = 0; ordinal < size; ordinal += 1) {
        const project = sim.state.project(ordinal);
        if (project) all.set(String(project.id), project);
      }
      return all;
    },
    async close() {
      await transport.close();
      await sim.close();
    },
  };
}
