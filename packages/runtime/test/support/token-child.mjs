// A separate process on a connection whose OAuth2 tokens several processes share, for
// test/token-fleet.test.ts and tools/bench/p9-refresh.mjs. It runs the built SDK and the runtime's file
// credential store; argv[2] is JSON with
//   tokenUrl, authorizeUrl, apiUrl  the OAuth rig
//   clientId     the native client
//   storeDir     the state folder of the file credential store
//   redisStore   the Redis URL of a shared credential store instead (redis-credential-store.mjs), or absent
//   redisStorePrefix  its keys' prefix
//   calls        how many `me.get` runs at once
//   redis        createHostTransport's `redis` option, or absent
//   lockFolder   the lock folder (used without redis), or absent
//   warm         a token set of a grant of its own: 20 calls first on another connection, so that
//                the measured calls meet a warm process; one that has expired warms the refresh's
//                path too (optional)
// It prints `ready` and waits for lines on stdin. `go` makes its calls on connection `conn-1`
// all at once, prints one JSON line { ok, errors, ms } (each call's milliseconds), closes its
// transport and exits by itself. A line `{"connection": "<id>"}` does the same on that
// connection and waits for the next line, as a long-lived worker meets one burst after another;
// it exits when stdin ends.
import { createInterface } from 'node:readline';

const settings = JSON.parse(process.argv[2]);
const { z } = await import('zod');
const { defineAction, defineConnector, oauth2AuthorizationCode, readAll } = await import('@plugboard/sdk');
const { createHostTransport } = await import('@plugboard/sdk/host');
const { fileCredentialStore } = await import('../../dist/index.js');

const connector = defineConnector({
  key: 'rigged',
  name: 'Rigged',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'A connector whose API takes OAuth2 access tokens from the test rig.',
  // Declared, so that calls go side by side from the first.
  rateLimits: { default: { limit: 100_000, per: 'second' } },
  auth: oauth2AuthorizationCode({
    tokenUrl: settings.tokenUrl,
    authorizeUrl: settings.authorizeUrl,
    scopes: ['items:read'],
  }),
  actions: [
    defineAction({
      key: 'me.get',
      label: 'Who am I',
      direction: 'source',
      entity: z.object({ sub: z.string() }).meta({ id: 'RigMe' }),
      input: z.object({}),
      async *read(ctx) {
        yield { records: [{ sub: (await ctx.http.get('/me')).sub }] };
      },
    }),
  ],
});

const store = settings.redisStore
  ? (await import('./redis-credential-store.mjs')).redisCredentialStore(settings.redisStore, settings.redisStorePrefix)
  : fileCredentialStore(settings.storeDir);
const transport = createHostTransport({
  network: { allow: ['127.0.0.0/8'] },
  credentials: { store, ...(settings.lockFolder ? { lockFolder: settings.lockFolder } : {}) },
  ...(settings.redis ? { redis: settings.redis } : {}),
});
const call = (connectionId, tokens) =>
  readAll(connector, 'me.get', {
    input: {},
    connection: { id: connectionId, baseUrl: settings.apiUrl },
    credential: () => ({ clientId: settings.clientId, tokens }),
    transport,
    retry: { retries: 0 },
    log: () => undefined,
  });
if (settings.warm) await Promise.all(Array.from({ length: 20 }, () => call(`warm-${process.pid}`, settings.warm)));

/** The calls on one connection, all at once; the resolver's set is what a host would hold, the store's (maybe expired) set the one used. */
async function burst(connectionId) {
  const tokens = (await store.read(connectionId)).tokens;
  const errors = [];
  const ms = [];
  let ok = 0;
  await Promise.all(
    Array.from({ length: settings.calls }, async () => {
      const started = performance.now();
      try {
        await call(connectionId, tokens);
        ok += 1;
      } catch (error) {
        errors.push(error.code ?? String(error));
      }
      ms.push(performance.now() - started);
    }),
  );
  process.stdout.write(`${JSON.stringify({ ok, errors, ms })}\n`);
}

process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line === 'go') {
    await burst('conn-1');
    break;
  }
  await burst(JSON.parse(line).connection);
}
// Stdin stays open after `go`: let go of it, or the process would wait on it.
lines.close();
process.stdin.destroy();
await transport.close();
await store.close?.();
