import { CheckpointTooNewError, createTransport, type Page, type Transport } from '@plugboard/sdk';
import { createExecutor, type PluginConnector, type Stores } from '@plugboard/sdk/host';
import { answer, type FaultServer, startFaultServer } from '@plugboard/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { fileStore, loadPlugin, startPlugin } from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/**
 * A connector upgraded across a change of its checkpoint's shape: version 1 keeps
 * `{ updated_after, seen_ids }`, version 2 keeps `{ cursor: { at, ids } }` and migrates the old
 * one. Both are packages loaded as the platform loads plugins, run against a provider on
 * 127.0.0.1 that lists records from `updated_after` on, two a page.
 */

/** The connector's source, as its build writes it: `version` 1 or 2 of the checkpoint. */
function connectorSource(version: 1 | 2): string {
  const checkpoint =
    version === 1
      ? `z.object({ updated_after: z.string(), seen_ids: z.array(z.string()) })`
      : `{
          version: 2,
          schema: z.object({ cursor: z.object({ at: z.string(), ids: z.array(z.string()) }) }),
          migrate: { 1: (old) => ({ cursor: { at: old.updated_after, ids: old.seen_ids } }) },
        }`;
  // Each version reads its own shape: where to ask from, and the ids already read at that instant.
  const from =
    version === 1
      ? 'const at = ctx.checkpoint?.updated_after; const seen = ctx.checkpoint?.seen_ids ?? [];'
      : 'const at = ctx.checkpoint?.cursor.at; const seen = ctx.checkpoint?.cursor.ids ?? [];';
  const mark = version === 1 ? '{ updated_after: newest, seen_ids: ids }' : '{ cursor: { at: newest, ids: ids } }';
  return `
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const Row = z.object({ id: z.string(), updated_at: z.string() }).meta({ id: 'Row' });
export default defineConnector({
  key: 'rows',
  name: 'Rows',
  version: '${version}.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Rows of a test provider.',
  auth: bearerToken(),
  baseUrl: 'http://127.0.0.1:9',
  actions: [
    defineAction({
      key: 'rows.list',
      label: 'List rows',
      direction: 'source',
      entity: Row,
      input: z.object({}),
      incremental: { cursorField: 'updated_at', checkpoint: ${checkpoint} },
      async *read(ctx) {
        ${from}
        let newest = at;
        let ids = [...seen];
        for (let page = 1; ; page += 1) {
          const body = await ctx.http.get('/rows', { query: { page, ...(at ? { updated_after: at } : {}) } });
          const records = body.data.filter((row) => !(row.updated_at === at && seen.includes(row.id)));
          for (const row of records) {
            if (row.updated_at !== newest) ids = [];
            newest = row.updated_at;
            ids.push(row.id);
          }
          // A page of rows read before moves no checkpoint.
          yield { records, ...(records.length > 0 ? { checkpoint: ${mark} } : {}) };
          if (!body.next) return;
        }
      },
    }),
  ],
});
`;
}

interface Row {
  id: string;
  updated_at: string;
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
/** r3, r4 and r5 share one instant: v1 stops between r4 and r5, which arrives later. */
const FIRST: Row[] = [
  { id: 'r1', updated_at: at(1) },
  { id: 'r2', updated_at: at(2) },
  { id: 'r3', updated_at: at(3) },
  { id: 'r4', updated_at: at(3) },
];
const LATER: Row[] = [
  { id: 'r5', updated_at: at(3) },
  { id: 'r6', updated_at: at(4) },
  { id: 'r7', updated_at: at(5) },
];

let rows: Row[] = [];
let server: FaultServer;
let folders: PluginFolder[] = [];
let transport: Transport;

beforeAll(async () => {
  // The provider lists rows from updated_after on (the bound included), oldest first, two a page.
  server = await startFaultServer((request) => {
    const from = request.query.get('updated_after');
    const listed = rows.filter((row) => from === null || row.updated_at >= from);
    const page = Number(request.query.get('page') ?? '1');
    const data = listed.slice((page - 1) * 2, page * 2);
    return answer({ body: { data, next: page * 2 < listed.length } });
  });
  // The imported plugin's requests go to the provider on 127.0.0.1: the host lets loopback through.
  transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
  folders = await Promise.all(
    ([1, 2] as const).map((version) =>
      npmFolder([{ name: 'connector-rows', version: `${version}.0.0`, entry: connectorSource(version) }]),
    ),
  );
});
afterAll(async () => {
  await server?.close();
  await transport?.close();
  await Promise.all(folders.map((folder) => folder.cleanup()));
});

let stateDir: string | undefined;
afterEach(async () => {
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
  stateDir = undefined;
});

/** Each version of the package, loaded as the platform loads it: in a process of its own, or imported. */
const isolations = {
  isolated: async (version: 1 | 2) => {
    const plugin = await startPlugin(
      { dir: join(folders[version - 1]!.modules, 'connector-rows') },
      {
        allow: ['127.0.0.0/8'],
      },
    );
    return { plugin: { package: plugin.package, runner: plugin.runner } as PluginConnector, close: plugin.close };
  },
  'imported into the host': async (version: 1 | 2) => {
    const loaded = await loadPlugin({ dir: join(folders[version - 1]!.modules, 'connector-rows') });
    return {
      plugin: { package: loaded.package, connector: loaded.connector } as PluginConnector,
      close: async () => {},
    };
  },
};

describe.each(Object.entries(isolations))('a connector upgraded with a migrated checkpoint (%s)', (_name, start) => {
  async function reader(version: 1 | 2, stores: Stores) {
    const { plugin, close } = await start(version);
    const executor = createExecutor({
      plugins: [plugin],
      resolveConnection: (id) => ({ id, baseUrl: server.url }),
      resolveCredential: () => 'token-of-the-test',
      stores,
      transport,
      retry: { retries: 0 },
    });
    const read = async (onPage: (page: Page, index: number) => void | Promise<void> = () => {}) => {
      const pages: Page[] = [];
      const outcome = await executor.execute({
        connectorKey: 'rows',
        action: 'rows.list',
        connectionId: 'conn_1',
        onPage: async (page, { index }) => {
          await onPage(page, index);
          pages.push(page);
        },
      });
      return { pages, ids: pages.flatMap((page) => page.records.map((row) => (row as Row).id)), outcome };
    };
    return { read, close };
  }

  test('version 2 resumes exactly where version 1 stopped; the migrated checkpoint is committed after its first acknowledged page; version 1 refuses it', async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'plugboard-migrate-'));
    const stores = fileStore(stateDir);
    rows = [...FIRST];
    server.clear();

    const v1 = await reader(1, stores);
    let stream = '';
    try {
      const first = await v1.read();
      expect(first.ids).toEqual(['r1', 'r2', 'r3', 'r4']);
      stream = first.outcome.direction === 'source' ? first.outcome.stream : '';
    } finally {
      await v1.close();
    }
    const v1Checkpoint = { updated_after: at(3), seen_ids: ['r3', 'r4'] };
    expect(await stores.checkpoints.get(stream)).toEqual(v1Checkpoint);

    rows = [...FIRST, ...LATER];
    server.clear();
    const v2 = await reader(2, stores);
    try {
      // A host that fails to take the first page leaves the old checkpoint as it was.
      const refused = await v2
        .read(() => Promise.reject(new Error('the host could not keep the page')))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toMatchObject({ message: expect.stringContaining('the host could not keep the page') });
      expect(await stores.checkpoints.get(stream)).toEqual(v1Checkpoint);
      server.clear();

      const seenWhileAcknowledging: unknown[] = [];
      const second = await v2.read(async () => void seenWhileAcknowledging.push(await stores.checkpoints.get(stream)));
      // Its first request asks from v1's bound; r3 and r4 are not delivered again, r5 at the same instant is not skipped.
      expect(server.requests[0]!.query.get('updated_after')).toBe(at(3));
      expect(second.ids).toEqual(['r5', 'r6', 'r7']);
      // While the first page is acknowledged the store still holds v1's checkpoint; after it, version 2's.
      // Its first page held only rows read before and moved no checkpoint: the migrated one is committed after it.
      expect(second.pages.map((page) => page.records.length)).toEqual([0, 2, 1]);
      expect(seenWhileAcknowledging[0]).toEqual(v1Checkpoint);
      expect(seenWhileAcknowledging[1]).toEqual({
        $checkpointVersion: 2,
        checkpoint: { cursor: { at: at(3), ids: ['r3', 'r4'] } },
      });
      expect(await stores.checkpoints.get(stream)).toEqual({
        $checkpointVersion: 2,
        checkpoint: { cursor: { at: at(5), ids: ['r7'] } },
      });
      expect(second.outcome).toMatchObject({ checkpoint: { cursor: { at: at(5), ids: ['r7'] } } });
    } finally {
      await v2.close();
    }

    // Version 1 again: the checkpoint is of a version it does not know; it stops and sends nothing.
    server.clear();
    const back = await reader(1, stores);
    try {
      const error = await back.read().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      // Refused by the host against the version the plugin declares, before the plugin sees the checkpoint.
      expect(error).toBeInstanceOf(CheckpointTooNewError);
      expect(error).toMatchObject({ code: 'checkpoint_too_new', stored: 2, known: 1 });
      expect((error as Error).message).toMatch(
        /^rows rows\.list: the stored checkpoint is version 2, newer than version 1, .*run the connector version that wrote it, or reset/,
      );
      expect(server.count).toBe(0);
      expect(await stores.checkpoints.get(stream)).toMatchObject({ $checkpointVersion: 2 });
    } finally {
      await back.close();
    }
  }, 60_000);
});
