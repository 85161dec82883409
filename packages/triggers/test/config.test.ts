import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReceiver, readTriggerConfig, TriggerConfigError } from '../src/index.js';
import { ENV, SECRET, stateFolder, trigger, useCleanup } from './support.js';

/**
 * The configuration is checked once, before anything listens: every problem named with its
 * path in one typed error, a secret in the file refused as such, the secrets' variables read
 * from the environment, never a value quoted.
 */

useCleanup();

async function refusal(config: unknown, env: Record<string, string> = ENV): Promise<TriggerConfigError> {
  try {
    createReceiver({ config, env, stateDir: await stateFolder() });
  } catch (error) {
    expect(error).toBeInstanceOf(TriggerConfigError);
    return error as TriggerConfigError;
  }
  throw new Error('the configuration was taken');
}

describe('the trigger configuration', () => {
  it('refuses a secret in the file, typed, naming the field, without quoting it', async () => {
    const error = await refusal({
      triggers: [
        trigger({ secret: SECRET, signingKey: 'abc' }),
        trigger({ triggerId: 'b', url: '/api/connect/triggers/b', name: SECRET }),
      ],
    });
    expect(error.code).toBe('invalid_input');
    expect(error.issues).toEqual([
      { path: 'triggers[0].secret', message: expect.stringContaining('a secret never goes in the file') },
      { path: 'triggers[0].signingKey', message: expect.stringContaining('a secret never goes in the file') },
      { path: 'triggers[0].secret', message: expect.stringContaining('a secret never goes in the file') },
      { path: 'triggers[1].name', message: expect.stringContaining('a secret never goes in the file') },
    ]);
    expect(error.message).not.toContain(SECRET);
  });

  it('names every problem with its path at once', async () => {
    const error = await refusal({
      triggers: [
        trigger({
          url: '/api/connect/other/pub_orders',
          environment: 'staging',
          maxBodyBytes: 0,
          maxDeliveriesPerMinute: 1.5,
          timestampToleranceSeconds: 86_400,
          secretEnv: 'not a name',
          previousSecretEnv: 'PREVIOUS',
          surprise: true,
          run: { connector: 'shop', action: 'orders.import', connection: { id: 'c', settings: { apiKey: 'x' } } },
        }),
        trigger(),
        trigger(),
      ],
      extra: 1,
    });
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'triggers[0].url',
      'triggers[0].environment',
      'triggers[0].maxBodyBytes',
      'triggers[0].maxDeliveriesPerMinute',
      'triggers[0].timestampToleranceSeconds',
      'triggers[0].secretEnv',
      'triggers[0].surprise',
      'triggers[0].previousSecretValidUntil',
      'triggers[0].run.connection.settings',
      'extra',
      // The first trigger's triggerId is theirs too (its url is wrong, so its publicId is not counted).
      'triggers[1].triggerId',
      'triggers[2].triggerId',
      'triggers[2].url',
    ]);
    expect(error.issues.find((issue) => issue.path === 'triggers[0].run.connection.settings')?.message).toContain(
      'apiKey',
    );
  });

  it("refuses a secret's variable that is not set or too short, naming the variable and never its value", async () => {
    const config = {
      triggers: [trigger({ previousSecretEnv: 'OLD_SECRET', previousSecretValidUntil: '2026-01-02T00:00:00Z' })],
    };
    const error = await refusal(config, { TRIGGER_SECRET: 'short', OTHER: SECRET });
    expect(error.issues).toEqual([
      {
        path: 'triggers[0].secretEnv',
        message: 'the environment variable TRIGGER_SECRET holds fewer than 16 characters',
      },
      { path: 'triggers[0].previousSecretEnv', message: 'the environment variable OLD_SECRET is not set' },
    ]);
    expect(error.message).not.toContain('short');
  });

  it('takes a trigger copied from the platform, its url a full address, and a run naming a connection by id', async () => {
    const url = 'https://hooks.example.com/api/connect/triggers/pub_a-1';
    const run = { connector: 'shop', action: 'orders.import', connection: 'shop-main' };
    const receiver = createReceiver({
      config: { triggers: [trigger({ url, run })] },
      env: ENV,
      stateDir: await stateFolder(),
    });
    expect(receiver.addresses()).toEqual([
      { triggerId: 'trg_orders', status: 'active', environment: 'sandbox', url: '/api/connect/triggers/pub_a-1' },
    ]);
  });

  it('reads a file: one that is missing or not JSON is refused naming the file', async () => {
    const dir = await stateFolder();
    const file = join(dir, 'triggers.json');
    await expect(readTriggerConfig(file)).rejects.toMatchObject({
      issues: [{ path: file, message: 'cannot be read (ENOENT)' }],
    });
    await writeFile(file, `{"triggers": [${SECRET}`);
    const error = await readTriggerConfig(file).then(
      () => undefined,
      (caught: unknown) => caught as TriggerConfigError,
    );
    expect(error).toBeInstanceOf(TriggerConfigError);
    expect(error?.message).not.toContain(SECRET);
    await writeFile(file, JSON.stringify({ triggers: [trigger()] }));
    expect(await readTriggerConfig(file)).toEqual({ triggers: [trigger()] });
  });
});

describe('the poll triggers of the configuration', () => {
  const poll = (fields: Record<string, unknown> = {}) => ({
    pollTriggerId: 'poll_items',
    kind: 'poll',
    status: 'active',
    state: 'failing',
    nextCheckAt: null,
    intervalMinutes: 5,
    environment: 'sandbox',
    run: { connector: 'feed', action: 'items.list', connection: 'feed-main' },
    ...fields,
  });

  it('names every problem of a poll with its path, a secret setting as such', async () => {
    const error = await refusal({
      polls: [
        poll({
          intervalMinutes: 0,
          environment: 'staging',
          surprise: 1,
          run: { connector: 'feed', action: 'items.list', connection: { id: 'c', settings: { token: 'x' } } },
        }),
        poll(),
      ],
    });
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'polls[0].environment',
      'polls[0].intervalMinutes',
      'polls[0].surprise',
      'polls[0].run.connection.settings',
      'polls[1].pollTriggerId',
    ]);
    expect(error.message).not.toContain("'x'");
  });

  it('takes polls without triggers, a poll copied from the platform, and empty lists; refuses a file with neither', async () => {
    const receiver = createReceiver({ config: { polls: [poll()] }, env: {}, stateDir: await stateFolder() });
    expect(receiver.addresses()).toEqual([]);
    const none = createReceiver({ config: { triggers: [] }, env: {}, stateDir: await stateFolder() });
    expect(none.addresses()).toEqual([]);
    expect((await refusal({})).issues).toEqual([
      { path: 'triggers', message: 'neither triggers nor polls is given (an empty list of either is taken)' },
    ]);
  });
});
