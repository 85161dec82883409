// Tells whether a run of a bearer connector loads oauth4webapi, for test/oauth-lazy.test.ts.
// It runs the built SDK against a server of its own on 127.0.0.1 and prints one JSON line:
// { ok, oauth4webapiLoaded }.
import { createServer } from 'node:http';
import { registerHooks } from 'node:module';

let oauth4webapiLoaded = false;
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'oauth4webapi') oauth4webapiLoaded = true;
    return nextResolve(specifier, context);
  },
});

const { z } = await import('zod');
const sdk = await import('../../dist/index.js');
const server = createServer((_request, response) => {
  response.setHeader('content-type', 'application/json');
  response.end('{"sub":"user-1"}');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const connector = sdk.defineConnector({
  key: 'plain',
  name: 'Plain',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'A connector with a bearer token and nothing of OAuth.',
  auth: sdk.bearerToken(),
  actions: [
    sdk.defineAction({
      key: 'me.get',
      label: 'Who am I',
      direction: 'source',
      entity: z.object({ sub: z.string() }).meta({ id: 'PlainMe' }),
      input: z.object({}),
      async *read(ctx) {
        yield { records: [await ctx.http.get('/me')] };
      },
    }),
  ],
});
const transport = sdk.createTransport({ network: { allow: ['127.0.0.0/8'] } });
const { records } = await sdk.readAll(connector, 'me.get', {
  input: {},
  connection: { id: 'conn-1', baseUrl: `http://127.0.0.1:${server.address().port}` },
  credential: () => 'bearer-credential-1234',
  transport,
  log: () => undefined,
});
process.stdout.write(`${JSON.stringify({ ok: records.length === 1, oauth4webapiLoaded })}\n`);
await transport.close();
server.close();
