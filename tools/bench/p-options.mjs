#!/usr/bin/env node
// P-options, what listing an input field's options costs over its one request. A plain
// node:http server in a child process answers GET /folders?name=... with 25 folders. One at a
// time, the client times:
//
//   options   executor.listOptions of a field whose `list` makes that GET and maps the 25
//             folders to options: the listing prepared (query checked), passed through the
//             gate, run with the credential, its page checked against the field's schema
//   ctx.http  the same GET through ctx.http.get, and the same mapping, inside one run of an
//             action (each request timed on its own): the pipeline alone
//
// The two alternate in rounds (the order swaps every round), each after a warm-up; the
// figure is the difference of their medians (p50) over all timed calls. Target: an options
// call adds at most 1 ms p50. Not a test.
//
//   ./pbw build && node tools/bench/p-options.mjs [--calls 2000] [--rounds 5] [--warmup 300]
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { built, median, positiveInteger, round2, serveJson, startChild } from './lib.mjs';

const CREDENTIAL = 'bench-credential-123456';
const FOLDERS = Array.from({ length: 25 }, (_, index) => ({ id: `f_${index}`, name: `Clients ${index}` }));
const BODY = JSON.stringify({ data: FOLDERS, next: 'c2' });
const TARGET_MS = 1;

// The server, in its own process: `node p-options.mjs --serve`.
if (process.argv[2] === '--serve') serveJson(BODY);
else await main();

/** The folders answer as options: what both contenders do with it. */
function toOptions(page) {
  return {
    items: page.data.map((folder) => ({ value: folder.id, label: folder.name })),
    ...(page.next ? { nextCursor: page.next } : {}),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '300' },
    },
  });
  const calls = positiveInteger('calls', values.calls);
  const rounds = positiveInteger('rounds', values.rounds);
  const warmup = positiveInteger('warmup', values.warmup);

  const sdk = await built('packages/sdk/dist/index.js');
  const host = await built('packages/sdk/dist/host.js');
  const { z } = await import('zod');
  const server = await startChild([fileURLToPath(import.meta.url), '--serve'], { name: 'the server' });

  const query = { name: 'Clients' };
  /** Each ctx.http call's time in the last run of folders.time. */
  let timed = [];
  const Folder = z.object({ id: z.string() }).meta({ id: 'Folder' });
  const connector = sdk.defineConnector({
    key: 'bench',
    name: 'Bench',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'Folders to pick from, for the options benchmark.',
    auth: sdk.bearerToken(),
    rateLimits: { default: { limit: 1_000_000, per: 'second' } },
    actions: [
      sdk.defineAction({
        key: 'folders.move',
        label: 'Move a folder',
        direction: 'destination',
        entity: Folder,
        input: z.object({ folder_id: z.string() }),
        options: {
          folder_id: {
            from: 'the folders',
            searchable: true,
            list: async (ctx, { search }) => toOptions(await ctx.http.get('/folders', { query: { name: search } })),
          },
        },
        write: async (_ctx, input) => ({ id: input.folder_id }),
      }),
      sdk.defineAction({
        key: 'folders.time',
        label: 'Time the folders request',
        direction: 'source',
        entity: Folder,
        input: z.object({ count: z.number().int().min(1) }),
        async *read(ctx, input) {
          timed = new Array(input.count);
          for (let index = 0; index < input.count; index += 1) {
            const started = performance.now();
            const page = toOptions(await ctx.http.get('/folders', { query }));
            timed[index] = performance.now() - started;
            if (page.items.length !== FOLDERS.length) throw new Error('bench: ctx.http got another answer');
          }
          yield { records: [] };
        },
      }),
    ],
  });
  const transport = sdk.createTransport();
  const executor = host.createExecutor({
    connectors: [connector],
    resolveConnection: (id) => ({ id, baseUrl: server.info.url }),
    resolveCredential: () => CREDENTIAL,
    transport,
    log: () => undefined,
  });
  const request = {
    connectorKey: 'bench',
    action: 'folders.move',
    field: 'folder_id',
    connectionId: 'c1',
    search: 'Clients',
  };

  async function optionsCalls(count) {
    const times = new Array(count);
    for (let index = 0; index < count; index += 1) {
      const started = performance.now();
      const page = await executor.listOptions(request);
      times[index] = performance.now() - started;
      if (page.items.length !== FOLDERS.length) throw new Error('bench: listOptions got another answer');
    }
    return times;
  }
  async function ctxHttpCalls(count) {
    await executor.execute({
      connectorKey: 'bench',
      action: 'folders.time',
      connectionId: 'c1',
      input: { count },
      onPage: () => undefined,
    });
    return timed;
  }

  console.log(
    `bench: P-options, listOptions against the same GET through ctx.http, one at a time, ${rounds} rounds of ${calls} calls each, Node ${process.versions.node}`,
  );
  const all = { options: [], ctxHttp: [] };
  try {
    await optionsCalls(warmup);
    await ctxHttpCalls(warmup);
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['options', 'ctxHttp'] : ['ctxHttp', 'options'];
      const medians = {};
      for (const name of order) {
        const times = name === 'options' ? await optionsCalls(calls) : await ctxHttpCalls(calls);
        all[name].push(...times);
        medians[name] = median(times);
      }
      console.log(
        `bench: round ${round + 1}: p50 options ${medians.options.toFixed(3)} ms, ctx.http ${medians.ctxHttp.toFixed(3)} ms, added ${(medians.options - medians.ctxHttp).toFixed(3)} ms`,
      );
    }
  } finally {
    await transport.close();
    await server.stop();
  }
  const p50 = { options: median(all.options), ctxHttp: median(all.ctxHttp) };
  const added = p50.options - p50.ctxHttp;
  const meets = added <= TARGET_MS;
  console.log(
    `bench: p50 over all calls: options ${p50.options.toFixed(3)} ms, ctx.http ${p50.ctxHttp.toFixed(3)} ms; an options call adds ${added.toFixed(3)} ms (target <= ${TARGET_MS} ms): ${meets ? 'yes' : 'NO'}`,
  );
  console.log(
    JSON.stringify({
      bench: 'p-options',
      calls,
      rounds,
      node: process.versions.node,
      p50Ms: { options: round2(p50.options), ctxHttp: round2(p50.ctxHttp) },
      addedMs: Math.round(added * 1000) / 1000,
      targetMs: TARGET_MS,
      meetsTarget: meets,
    }),
  );
}
