import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  bearerToken,
  CheckpointMigrationError,
  CheckpointTooNewError,
  type ConnectorDefinition,
  defineAction,
  defineConnector,
  DefinitionError,
  InvalidInputError,
  type VersionedCheckpoint,
} from '../src/index.js';
import {
  checkpointFromStore,
  checkpointToStore,
  createExecutor,
  memoryStore,
  resumeFrom,
  type PreparedRun,
  prepareRun,
} from '../src/host.js';

/**
 * Checkpoint versions: a connector declares its checkpoint's version and a migration from each
 * older one; a stored checkpoint of an older version is migrated, one of a newer refused.
 */

const Row = z.object({ id: z.string(), updated_at: z.string() }).meta({ id: 'Row' });
const V2 = z.object({ cursor: z.object({ at: z.string(), ids: z.array(z.string()) }) });

const base: Omit<ConnectorDefinition, 'actions'> = {
  key: 'rows',
  name: 'Rows',
  version: '2.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Rows.',
  auth: bearerToken(),
  baseUrl: 'https://rows.invalid',
};

/** How many times a run reached the action's read: none means nothing was sent. */
let reads = 0;

/** The source under test; its pages move no checkpoint, so what the executor commits is the one it resumed from. */
function rowsList(checkpoint: z.ZodType | VersionedCheckpoint<unknown>) {
  return defineAction({
    key: 'rows.list',
    label: 'List rows',
    direction: 'source',
    entity: Row,
    input: z.object({}),
    incremental: { cursorField: 'updated_at', checkpoint },
    async *read(ctx) {
      reads += 1;
      yield { records: [] };
    },
  });
}

const migrate = {
  1: (old: { updated_after: string; seen_ids: string[] }) => ({ cursor: { at: old.updated_after, ids: old.seen_ids } }),
};
const v2 = defineConnector({ ...base, actions: [rowsList({ version: 2, schema: V2, migrate })] });
const OLD = { updated_after: '2026-01-01T00:00:03.000Z', seen_ids: ['r3', 'r4'] };
const MIGRATED = { cursor: { at: '2026-01-01T00:00:03.000Z', ids: ['r3', 'r4'] } };

function problemsOf(checkpoint: unknown): string[] {
  try {
    defineConnector({ ...base, actions: [rowsList(checkpoint as VersionedCheckpoint<unknown>)] });
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return [...(error as DefinitionError).problems];
  }
  throw new Error('the definition was accepted');
}

function prepared(connector = v2): PreparedRun {
  return prepareRun(connector, 'rows.list', { input: {} });
}

async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('a versioned checkpoint declaration', () => {
  test('is checked at definition: whole versions from 1, a migration from every older version, each a function', () => {
    expect(problemsOf({ version: 3, schema: V2, migrate: { 2: () => ({}) } })).toEqual([
      "connector 'rows': action 'rows.list': incremental.checkpoint.migrate needs a migration from version 1 to 2",
    ]);
    expect(problemsOf({ version: 1.5, schema: V2, migrate: {} })).toEqual([
      "connector 'rows': action 'rows.list': incremental.checkpoint.version must be a whole number from 1 to 1000, not 1.5",
    ]);
    expect(problemsOf({ version: 0, schema: V2, migrate: {} })).toContain(
      "connector 'rows': action 'rows.list': incremental.checkpoint.version must be a whole number from 1 to 1000, not 0",
    );
    // A version past the bound is named once, not answered with a line per missing migration.
    expect(problemsOf({ version: 2 ** 40, schema: V2, migrate: {} })).toEqual([
      "connector 'rows': action 'rows.list': incremental.checkpoint.version must be a whole number from 1 to 1000, not 1099511627776",
    ]);
    expect(problemsOf({ version: 2, schema: V2, migrate: { 1: 'nope', 2: () => ({}), x: () => ({}) } })).toEqual([
      "connector 'rows': action 'rows.list': incremental.checkpoint.migrate[1] must be a function",
      "connector 'rows': action 'rows.list': incremental.checkpoint.migrate: 2 is not a version below 2",
      "connector 'rows': action 'rows.list': incremental.checkpoint.migrate: x is not a version below 2",
    ]);
    expect(problemsOf({ version: 2, schema: { parse: () => 1 }, migrate })).toEqual([
      "connector 'rows': action 'rows.list': incremental.checkpoint.schema must be a zod schema",
    ]);
    // A schema alone is version 1, as before versions; so is { version: 1 } without migrations.
    expect(() => defineConnector({ ...base, actions: [rowsList(V2)] })).not.toThrow();
    expect(() =>
      defineConnector({ ...base, actions: [rowsList({ version: 1, schema: V2, migrate: {} })] }),
    ).not.toThrow();
  });

  test('the prepared run carries the version the executor stores the checkpoint under', () => {
    expect(prepared().checkpointVersion).toBe(2);
    expect(prepared(defineConnector({ ...base, actions: [rowsList(V2)] })).checkpointVersion).toBe(1);
  });
});

describe('resuming from a stored checkpoint', () => {
  test('one of an older version is migrated, then checked against the current schema', () => {
    expect(resumeFrom(prepared(), OLD, 1).checkpoint).toEqual(MIGRATED);
    // One of the current version passes as it is; with no version given it is the current one.
    expect(resumeFrom(prepared(), MIGRATED, 2).checkpoint).toEqual(MIGRATED);
    expect(resumeFrom(prepared(), MIGRATED).checkpoint).toEqual(MIGRATED);
  });

  test('migrations run in turn, from the stored version to the current one', () => {
    const v3 = defineConnector({
      ...base,
      actions: [
        rowsList({
          version: 3,
          schema: z.object({ at: z.string() }),
          migrate: { ...migrate, 2: (old: z.infer<typeof V2>) => ({ at: old.cursor.at }) },
        }),
      ],
    });
    expect(resumeFrom(prepared(v3), OLD, 1).checkpoint).toEqual({ at: OLD.updated_after });
    expect(resumeFrom(prepared(v3), MIGRATED, 2).checkpoint).toEqual({ at: OLD.updated_after });
  });

  test('one of a newer version is refused with a typed error naming both versions and what to do', async () => {
    const error = await failure(() => resumeFrom(prepared(), { at: 'x' }, 3));
    expect(error).toBeInstanceOf(CheckpointTooNewError);
    expect(error).toMatchObject({
      code: 'checkpoint_too_new',
      retryable: false,
      connector: 'rows',
      action: 'rows.list',
      stored: 3,
      known: 2,
    });
    expect((error as Error).message).toBe(
      "rows rows.list: the stored checkpoint is version 3, newer than version 2, the newest this connector knows; run the connector version that wrote it, or reset the stream's checkpoint to read from the start",
    );
  });

  test('a migration that throws or gives a value the schema refuses is a typed error naming connector, action and versions', async () => {
    const broken = (fn: (old: typeof OLD) => unknown) =>
      prepared(defineConnector({ ...base, actions: [rowsList({ version: 2, schema: V2, migrate: { 1: fn } })] }));
    const bad = await failure(() =>
      resumeFrom(
        broken(() => ({ cursor: { at: 3 } })),
        OLD,
        1,
      ),
    );
    expect(bad).toBeInstanceOf(CheckpointMigrationError);
    expect(bad).toMatchObject({ code: 'checkpoint_migration_failed', retryable: false, from: 1, to: 2 });
    expect((bad as Error).message).toMatch(
      /^rows rows\.list: migrating the checkpoint from version 1 to 2 failed: checkpoint\.cursor\.at: .*checkpoint\.cursor\.ids/,
    );
    const threw = await failure(() =>
      resumeFrom(
        broken(() => {
          throw new Error('no cursor here');
        }),
        OLD,
        1,
      ),
    );
    expect((threw as Error).message).toBe(
      'rows rows.list: migrating the checkpoint from version 1 to 2 failed: checkpoint: migrate[1] threw: no cursor here',
    );
    const notJson = await failure(() =>
      resumeFrom(
        broken(() => ({ cursor: { at: new Date(0), ids: [] } })),
        OLD,
        1,
      ),
    );
    expect(notJson).toBeInstanceOf(CheckpointMigrationError);
    expect((notJson as Error).message).toMatch(/checkpoint\.cursor\.at: /);
    // A checkpoint of the current version that does not fit is bad input, as before versions.
    expect(await failure(() => resumeFrom(prepared(), OLD, 2))).toBeInstanceOf(InvalidInputError);
  });
});

describe('a checkpoint as a store keeps it', () => {
  test('version 1 as it is; a later version in an envelope; anything else is version 1', () => {
    expect(checkpointToStore(OLD, 1)).toEqual(OLD);
    expect(checkpointToStore(MIGRATED, 2)).toEqual({ $checkpointVersion: 2, checkpoint: MIGRATED });
    expect(checkpointFromStore(checkpointToStore(MIGRATED, 2))).toEqual({ checkpoint: MIGRATED, version: 2 });
    expect(checkpointFromStore(OLD)).toEqual({ checkpoint: OLD, version: 1 });
    for (const lookalike of [
      { $checkpointVersion: 2, checkpoint: 1, more: true },
      { $checkpointVersion: 0, checkpoint: 1 },
      { $checkpointVersion: '2', checkpoint: 1 },
      { $checkpointVersion: 2.5, checkpoint: 1 },
      [2, 1],
      'text',
      null,
    ])
      expect(checkpointFromStore(lookalike)).toEqual({ checkpoint: lookalike, version: 1 });
  });
});

describe('the executor', () => {
  const executorFor = (connector = v2, stores = memoryStore()) => ({
    stores,
    executor: createExecutor({
      connectors: [connector],
      resolveConnection: (id) => ({ id }),
      resolveCredential: () => 'token',
      stores,
    }),
  });
  const run = (executor: ReturnType<typeof executorFor>['executor']) =>
    executor.execute({ connectorKey: 'rows', action: 'rows.list', connectionId: 'c', stream: 's', onPage: () => {} });

  test('refuses a checkpoint of a newer version before the run starts, and keeps it', async () => {
    const { stores, executor } = executorFor(defineConnector({ ...base, actions: [rowsList(V2)] }));
    await stores.checkpoints.commit('s', checkpointToStore(MIGRATED, 2));
    reads = 0;
    expect(await failure(() => run(executor))).toMatchObject({ code: 'checkpoint_too_new', stored: 2, known: 1 });
    expect(reads).toBe(0);
    expect(await stores.checkpoints.get('s')).toEqual({ $checkpointVersion: 2, checkpoint: MIGRATED });
  });

  test('a migration that fails stops the run before anything is sent, and commits nothing', async () => {
    const broken = defineConnector({
      ...base,
      actions: [rowsList({ version: 2, schema: V2, migrate: { 1: () => ({ cursor: null }) } })],
    });
    const { stores, executor } = executorFor(broken);
    await stores.checkpoints.commit('s', OLD);
    reads = 0;
    expect(await failure(() => run(executor))).toBeInstanceOf(CheckpointMigrationError);
    expect(reads).toBe(0);
    expect(await stores.checkpoints.get('s')).toEqual(OLD);
  });

  test('stores the migrated checkpoint under its version once the first page is acknowledged, though the page moved none', async () => {
    const { stores, executor } = executorFor();
    await stores.checkpoints.commit('s', OLD);
    const outcome = await run(executor);
    expect(outcome).toMatchObject({ pages: 1, checkpoint: MIGRATED });
    expect(await stores.checkpoints.get('s')).toEqual({ $checkpointVersion: 2, checkpoint: MIGRATED });
  });
});
