import { createExecutor } from '@plugboard/sdk/host';
import { answer, type FaultServer, startFaultServer } from '@plugboard/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RedisServer, startRedis } from '../../sdk/test/support/redis.js';
import { type IsolatedPlugin, startPlugin } from '../src/index.js';
import { connectorSource, npmFolder, type PluginFolder } from './support/plugins.js';

/**
 * Budgets of isolated plugins: the HTTP pipeline runs in each plugin's process, and a host that
 * gives `redis` has every process keep one budget there. Two processes of one connector, a
 * declared budget of 5 a second, and a provider that counts arrivals.
 */

const LIMIT = 5;
let redis: RedisServer | undefined;
let server: FaultServer;
let folder: PluginFolder;

beforeAll(async () => {
  const result = await startRedis();
  if (!result.server) {
    if (process.env.CI) throw new Error(`the isolated budget test needs redis-server on CI: ${result.reason}`);
    console.warn(`skipping the isolated budget test: ${result.reason}`);
    return;
  }
  redis = result.server;
  server = await startFaultServer(answer({ status: 200, body: { id: 'x' } }));
  const budgeted = connectorSource('budgeted')
    .replace(
      "baseUrl: 'http://127.0.0.1:9',",
      `baseUrl: 'http://127.0.0.1:9', rateLimits: { default: { limit: ${LIMIT}, per: 'second' } },`,
    )
    .replace(
      "async *read() { yield { records: [{ id: '1' }] }; }",
      "async *read(ctx) { yield { records: [await ctx.http.get('/thing')] }; }",
    );
  folder = await npmFolder([{ name: 'connector-budgeted', entry: budgeted }]);
}, 15 * 60_000);

afterAll(async () => {
  await server?.close();
  await folder?.cleanup();
  await redis?.stop();
});

describe('budgets of isolated plugins', () => {
  test('two processes of one connector share its declared budget through Redis: no more than the limit arrives in any second', async (context) => {
    if (!redis) context.skip();
    const options = {
      allow: ['127.0.0.0/8'],
      redis: { url: redis!.url, prefix: `plugboard-isolated-${process.pid}:` },
    };
    const plugins: IsolatedPlugin[] = [
      await startPlugin({ name: 'connector-budgeted', from: folder.dir }, options),
      await startPlugin({ name: 'connector-budgeted', from: folder.dir }, options),
    ];
    try {
      const executors = plugins.map((plugin) =>
        createExecutor({
          plugins: [{ package: plugin.package, runner: plugin.runner }],
          resolveConnection: (id) => ({ id, baseUrl: server.url }),
          resolveCredential: () => 'token',
          log: () => undefined,
        }),
      );
      const runs = Array.from({ length: LIMIT + 3 }, (_, index) =>
        executors[index % 2]!.execute({
          connectorKey: 'budgeted',
          action: 'things.list',
          connectionId: 'conn_1',
          onPage: () => undefined,
        }),
      );
      await Promise.all(runs);
      const arrivals = server.requests.map((request) => request.at).sort((a, b) => a - b);
      expect(arrivals).toHaveLength(LIMIT + 3);
      for (let index = 0; index + LIMIT < arrivals.length; index += 1)
        expect(arrivals[index + LIMIT]! - arrivals[index]!).toBeGreaterThanOrEqual(1000);
    } finally {
      await Promise.all(plugins.map((plugin) => plugin.close()));
    }
  });
});
