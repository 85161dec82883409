// A separate process on a shared rate budget, for test/shared-budget.test.ts.
// It runs the built SDK (dist/index.js): argv[2] is JSON with
//   baseUrl   the test server
//   ids       one `items.get` request per id, all at once
//   sequential  true: the ids one after another instead
//   barrier   true: prints {"ready":true} once loaded, then sends nothing
//             until a line comes on stdin, so that several processes start together
//   budget    the connector's `default` budget ({ limit, per, maxConcurrent });
//             absent: the connector declares none
//   redis     createHostTransport's `redis` option; absent: no Redis at all
//   timeoutMs the action's timeout (ms); absent: the default
//   hideIORedis  true: resolving ioredis fails, as where it is not installed
//   warmUp    true: first one request (`/items/warm`) on a budget of its own
//             (another connection), so that a fresh process's first-request
//             delays do not land in the measured budget's window
//   dieMidAnswer  true: the process kills itself (SIGKILL) the moment the
//             answer's head to `/items/hang` came, its body still to come:
//             it dies mid-request whatever the test does meanwhile
// and it prints one JSON line: { ok, errors, ioredisLoaded }, then closes its
// transport and must exit by itself (nothing left open).
import { subscribe } from 'node:diagnostics_channel';
import { registerHooks } from 'node:module';

const settings = JSON.parse(process.argv[2]);

if (settings.dieMidAnswer) {
  subscribe('undici:request:headers', ({ request }) => {
    if (request.path.startsWith('/items/hang')) process.kill(process.pid, 'SIGKILL');
  });
}

// Tells whether anything asked for ioredis.
let ioredisLoaded = false;
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'ioredis' || specifier.startsWith('ioredis/')) {
      ioredisLoaded = true;
      if (settings.hideIORedis) {
        throw Object.assign(new Error(`Cannot find package 'ioredis' imported from ${context.parentURL}`), {
          code: 'ERR_MODULE_NOT_FOUND',
        });
      }
    }
    return nextResolve(specifier, context);
  },
});

const { z } = await import('zod');
const { bearerToken, defineAction, defineConnector, readAll } = await import('../../dist/index.js');
const { createHostTransport } = await import('../../dist/host.js');

const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'Item' });
const connector = defineConnector({
  key: 'shared',
  name: 'Shared',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'A connector whose budget several processes share.',
  auth: bearerToken(),
  rateLimits: settings.budget === undefined ? {} : { default: settings.budget },
  actions: [
    defineAction({
      key: 'items.get',
      label: 'Get',
      direction: 'source',
      entity: Item,
      input: z.object({ id: z.string() }),
      maxRetryAfterSeconds: 20,
      ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
      async *read(ctx, input) {
        yield { records: [await ctx.http.get('/items/{id}', { params: { id: input.id } })] };
      },
    }),
  ],
});

const transport = createHostTransport(settings.redis === undefined ? {} : { redis: settings.redis });
const errors = [];
let ok = 0;
const get = (id, connectionId) =>
  readAll(connector, 'items.get', {
    input: { id },
    connection: { id: connectionId, baseUrl: settings.baseUrl },
    credential: () => 'test-credential-1234',
    transport,
    retry: { retries: 4, minTimeoutMs: 10, maxTimeoutMs: 50 },
    log: () => undefined,
  });
if (settings.warmUp) await get('warm', `warm-${process.pid}`);
if (settings.barrier) {
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.destroy();
}
const one = async (id) => {
  try {
    await get(id, 'default');
    ok += 1;
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
};
if (settings.sequential) for (const id of settings.ids) await one(id);
else await Promise.all(settings.ids.map(one));
await transport.close();
process.stdout.write(`${JSON.stringify({ ok, errors, ioredisLoaded })}\n`);
