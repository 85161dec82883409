import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { items, itemsList, shop, startShopProvider } from '@plugboard/example-connector';
import { type Connector, defineAction, defineConnector, type Page, type SourceContext } from '@plugboard/sdk';
import type { FaultServer } from '@plugboard/testing';
import { runCli } from '../src/index.js';
import { bufferIo, seen, TOKEN } from './support.js';

/**
 * `run` and `record` keep a source's checkpoint in the state folder the executor's way: the
 * next connector version migrates the checkpoint an older one kept, and an older version
 * refuses the checkpoint a newer one kept, before any request.
 */

type V1 = { updated_after: string };

/** The shop's items.list, version 2: its checkpoint is `{ since }`, migrated from version 1's `{ updated_after }`. */
const itemsListV2 = defineAction({
  ...itemsList,
  incremental: {
    cursorField: 'updated_at',
    checkpoint: {
      version: 2,
      schema: z.object({ since: z.string() }),
      migrate: { 1: (old: V1) => ({ since: old.updated_after }) },
    },
  },
  async *read(ctx, input) {
    const since = ctx.checkpoint?.since;
    const context = {
      ...ctx,
      checkpoint: since === undefined ? undefined : { updated_after: since },
    } as SourceContext<V1>;
    for await (const page of itemsList.read!(context, input) as AsyncIterable<Page<unknown, V1>>)
      yield page.checkpoint
        ? {
            records: page.records as z.input<typeof itemsList.entity>[],
            checkpoint: { since: page.checkpoint.updated_after },
          }
        : { records: page.records as z.input<typeof itemsList.entity>[] };
  },
});
const shopV2: Connector = defineConnector({ ...shop, version: '2.0.0', actions: [itemsListV2] });

const ITEMS = items(5);
let listed = [...ITEMS];
let server: FaultServer;
let state: string;
beforeEach(async () => {
  listed = ITEMS.slice(0, 3);
  server = await startShopProvider({ items: listed, token: TOKEN });
  state = await mkdtemp(join(tmpdir(), 'plugboard-cli-checkpoint-'));
});
afterEach(async () => {
  await server.close();
  await rm(state, { recursive: true, force: true });
});

async function kept(): Promise<unknown> {
  const [file] = await readdir(join(state, 'checkpoints'));
  return (JSON.parse(await readFile(join(state, 'checkpoints', file!), 'utf8')) as { value: unknown }).value;
}

/** A command of `verb` on the shop's items.list with the test's state folder; a terminal's output with `tty`. */
function command(connector: Connector, verb: 'run' | 'record', more: string[] = [], tty = false) {
  const { io, stdout, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN }, tty);
  // On a terminal a failure is a sentence and a hint, not a JSON line.
  if (tty) io.stdout = { ...io.stdout, isTTY: true };
  const argv = [verb, 'shop', 'items.list', '--base-url', server.url, '--state', state, ...more];
  return runCli(argv, io, { pack: new Map([['shop', connector]]) }).then((code) => ({ code, stdout, stderr }));
}

describe('a kept checkpoint across connector versions', () => {
  it('run: version 2 resumes from the checkpoint version 1 kept and keeps its own; version 1 then refuses it and sends nothing', async () => {
    expect((await command(shop, 'run')).code).toBe(0);
    expect(await kept()).toEqual({ updated_after: ITEMS[2]!.updated_at });

    listed.push(...ITEMS.slice(3));
    server.clear();
    const upgraded = await command(shopV2, 'run');
    expect(upgraded.code).toBe(0);
    expect(seen(server)[0]).toBe(`GET /items?limit=3&updated_after=${encodeURIComponent(ITEMS[2]!.updated_at)}`);
    expect(
      upgraded
        .stdout()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual([ITEMS[3]!.id, ITEMS[4]!.id]);
    expect(await kept()).toEqual({ $checkpointVersion: 2, checkpoint: { since: ITEMS[4]!.updated_at } });

    server.clear();
    const downgraded = await command(shop, 'run');
    expect(downgraded.code).toBe(2);
    expect(JSON.parse(downgraded.stderr())).toMatchObject({
      code: 'checkpoint_too_new',
      message: expect.stringContaining(
        'the stored checkpoint is version 2, newer than version 1, the newest this connector knows',
      ),
    });
    expect(server.requests).toEqual([]);
    expect(await kept()).toEqual({ $checkpointVersion: 2, checkpoint: { since: ITEMS[4]!.updated_at } });
  });

  it('record: version 2 records from the migrated checkpoint and keeps it as version 2; version 1 refuses it', async () => {
    const fixtures = join(state, 'fixtures');
    expect((await command(shop, 'run')).code).toBe(0);
    listed.push(...ITEMS.slice(3));
    server.clear();
    const recorded = await command(shopV2, 'record', ['--scenario', 'items-since', '--fixtures', fixtures]);
    expect(recorded.code).toBe(0);
    expect(seen(server)[0]).toBe(`GET /items?limit=3&updated_after=${encodeURIComponent(ITEMS[2]!.updated_at)}`);
    const fixture = JSON.parse(await readFile(join(fixtures, 'items-since.json'), 'utf8')) as {
      scenario: { checkpoint: unknown };
    };
    expect(fixture.scenario.checkpoint).toEqual({ since: ITEMS[2]!.updated_at });
    expect(await kept()).toEqual({ $checkpointVersion: 2, checkpoint: { since: ITEMS[4]!.updated_at } });

    server.clear();
    const refused = await command(shop, 'record', ['--scenario', 'items-again', '--fixtures', fixtures], true);
    expect(refused.code).toBe(2);
    expect(refused.stderr()).toContain('newer than version 1');
    expect(refused.stderr()).toContain(
      'hint: a newer version of the connector kept this checkpoint: run that version, or pass --state with a new folder to read from the start',
    );
    expect(server.requests).toEqual([]);
  });
});
