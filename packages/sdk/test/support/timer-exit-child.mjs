// A process that runs two reads through the built SDK (dist/index.js) and must then exit by
// itself, for test/connection-wiring.test.ts: the action's timeout is two minutes, so a timeout
// timer that still held the process once the reads ended would keep it that long. It prints one
// JSON line: { records }. Sent through Node's http (`via: 'http'`), whose idle keep-alive
// sockets do not hold the process either; the transport is left open.
import { createServer } from 'node:http';

const { z } = await import('zod');
const sdk = await import('../../dist/index.js');
const server = createServer((_request, response) => {
  response.setHeader('content-type', 'application/json');
  response.end('{"id":"a"}');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const connector = sdk.defineConnector({
  key: 'patient',
  name: 'Patient',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'One read with a long timeout.',
  auth: sdk.bearerToken(),
  actions: [
    sdk.defineAction({
      key: 'item.get',
      label: 'Get the item',
      direction: 'source',
      timeoutMs: 120_000,
      entity: z.object({ id: z.string() }).meta({ id: 'PatientItem' }),
      input: z.object({}),
      async *read(ctx) {
        yield { records: [await ctx.http.get('/item')] };
      },
    }),
  ],
});
const transport = sdk.createTransport({ via: 'http' });
const options = {
  input: {},
  connection: { baseUrl: `http://127.0.0.1:${server.address().port}` },
  credential: () => 'bearer-credential-1234',
  transport,
  log: () => undefined,
};
const [first, second] = await Promise.all([
  sdk.readAll(connector, 'item.get', options),
  sdk.readAll(connector, 'item.get', options),
]);
process.stdout.write(`${JSON.stringify({ records: first.records.length + second.records.length })}\n`);
// The transport is left open on purpose; the server and its connections let the process go.
server.closeAllConnections();
server.close();
