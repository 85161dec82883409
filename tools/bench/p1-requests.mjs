#!/usr/bin/env node
// P1, requests per second through the SDK's HTTP pipeline. A plain node:http server in a
// child process (so its CPU is not the client's) answers every GET with one tiny JSON
// record. The client makes `--requests` GETs at concurrency 1 and at concurrency 16 with:
//
//   fetch     Node's built-in fetch, dispatcher an undici Agent in Dispatcher1Wrapper
//             (as the SDK's createTransport builds it), then res.json()
//   undici    undici.request on an undici Agent, then body.json()
//   axios     axios with axios-retry, on a keep-alive http.Agent
//   readAll   Plugboard: one readAll of a one-request source action per request
//   ctx.http  Plugboard: one run whose action calls ctx.http.get `--requests` times
//             (at the concurrency, through a promise pool) and yields once at the end
//   undeclared  readAll as above, of the same connector without its declared budget
//
// The connector declares its provider's limit (1,000,000 a second, which no run reaches),
// as a connector should: a declared budget that does not bind costs nothing, and that is what
// the targets measure. Without one the SDK cannot know the provider's window, and sends one
// request at a time until the provider first refuses or says how many requests remain (this
// server says neither): `undeclared` shows what that costs, with no target.
//
// All send the same request (accept: application/json, authorization: Bearer ...). Each
// contender has one pool/transport for the whole run, closed at the end. Contenders are
// interleaved within each round (the order rotates every round); the figures are medians
// over the rounds. A measurement stops starting requests after `--max-seconds`, so that a
// slow contender does not hold the run: its figure is the requests it finished over the
// time they took. Targets: Plugboard at least 0.9x fetch and at least 1.5x axios at both
// concurrencies, and readAll at least 0.9x undici.request at both (the per-run work: preparing,
// the gate, the connection's pipeline, paging, checking records). On a loaded machine a
// measurement of 20,000 requests spans seconds over which the load moves: many short rounds
// (`--requests 500 --rounds 40`) interleave the contenders more finely. Not a test.
//
//   ./pbw build && node tools/bench/p1-requests.mjs [--requests 20000] [--rounds 3] [--max-seconds 10] [--concurrency 1,16] [--warmup 500]
import { Agent as HttpAgent } from 'node:http';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  built,
  integerList,
  itemsGetAction,
  median,
  pool,
  positiveInteger,
  ratio,
  round2,
  serveJson,
  startChild,
  thousands,
  times,
} from './lib.mjs';

const BODY = JSON.stringify({ id: 'a', name: 'A', updated_at: '2026-11-01T00:00:00Z' });
const CREDENTIAL = 'bench-credential-123456';
const HEADERS = { accept: 'application/json', authorization: `Bearer ${CREDENTIAL}` };

// The server, in its own process: `node p1-requests.mjs --serve`.
if (process.argv[2] === '--serve') serveJson(BODY);
else await main();

async function main() {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      rounds: { type: 'string', default: '3' },
      'max-seconds': { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '1,16' },
      warmup: { type: 'string', default: '500' },
    },
  });
  const requests = positiveInteger('requests', values.requests);
  const rounds = positiveInteger('rounds', values.rounds);
  const concurrencies = integerList('concurrency', values.concurrency);
  const warmup = Number(values.warmup);
  const maxMs = positiveInteger('max-seconds', values['max-seconds']) * 1000;

  const sdk = await built('packages/sdk/dist/index.js');
  const undici = await import('undici');
  const { default: axios } = await import('axios');
  const { default: axiosRetry } = await import('axios-retry');
  const { z } = await import('zod');

  const server = await startChild([fileURLToPath(import.meta.url), '--serve'], { name: 'the server' });
  const baseUrl = server.info.url;

  /** How many requests the last items.get_many run made. */
  let manyDone = 0;
  const itemsGet = itemsGetAction(sdk, z);
  const declared = benchConnector({ default: { limit: 1_000_000, per: 'second' } });
  const undeclared = benchConnector(undefined);
  function benchConnector(rateLimits) {
    return sdk.defineConnector({
      key: 'bench',
      name: 'Bench',
      version: '1.0.0',
      vendor: null,
      category: 'developer',
      status: 'beta',
      summary: 'One item per request, for the requests-per-second benchmark.',
      auth: sdk.bearerToken(),
      ...(rateLimits ? { rateLimits } : {}),
      actions: [
        itemsGet,
        sdk.defineAction({
          key: 'items.get_many',
          label: 'Get an item many times',
          direction: 'source',
          entity: itemsGet.entity,
          input: z.object({
            id: z.string(),
            count: z.number().int().min(1),
            concurrency: z.number().int().min(1),
            deadline: z.number(),
          }),
          async *read(ctx, input) {
            let last;
            const done = await pool(
              input.count,
              input.concurrency,
              async () => {
                last = await ctx.http.get(`/items/${input.id}`);
              },
              input.deadline,
            );
            manyDone = done;
            yield { records: [last] };
          },
        }),
      ],
    });
  }
  const credential = () => CREDENTIAL;
  const quiet = () => undefined;

  /** Each contender: `run(count, concurrency, deadline)` makes up to `count` GETs, checks what came back, and resolves with how many it made. */
  function fetchContender() {
    const agent = new undici.Agent({
      connect: { timeout: 10_000 },
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
      keepAliveTimeout: 4_000,
    });
    const dispatcher = new undici.Dispatcher1Wrapper(agent);
    const url = `${baseUrl}/items/a`;
    return {
      name: 'fetch',
      label: 'fetch + undici Agent (Dispatcher1Wrapper)',
      run(count, concurrency, deadline) {
        return pool(
          count,
          concurrency,
          async () => {
            const response = await fetch(url, { headers: HEADERS, dispatcher });
            const body = await response.json();
            if (response.status !== 200 || body.id !== 'a')
              throw new Error(`fetch: unexpected answer ${response.status}`);
          },
          deadline,
        );
      },
      close: () => agent.close(),
    };
  }

  function undiciContender() {
    const agent = new undici.Agent({
      connect: { timeout: 10_000 },
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
      keepAliveTimeout: 4_000,
    });
    const url = `${baseUrl}/items/a`;
    return {
      name: 'undici',
      label: 'undici.request',
      run(count, concurrency, deadline) {
        return pool(
          count,
          concurrency,
          async () => {
            const { statusCode, body } = await undici.request(url, { headers: HEADERS, dispatcher: agent });
            const data = await body.json();
            if (statusCode !== 200 || data.id !== 'a') throw new Error(`undici: unexpected answer ${statusCode}`);
          },
          deadline,
        );
      },
      close: () => agent.close(),
    };
  }

  function axiosContender() {
    const httpAgent = new HttpAgent({ keepAlive: true });
    const client = axios.create({ baseURL: baseUrl, headers: HEADERS, httpAgent, timeout: 60_000 });
    axiosRetry(client, { retries: 4, retryDelay: axiosRetry.exponentialDelay });
    return {
      name: 'axios',
      label: 'axios + axios-retry',
      run(count, concurrency, deadline) {
        return pool(
          count,
          concurrency,
          async () => {
            const { status, data } = await client.get('/items/a');
            if (status !== 200 || data.id !== 'a') throw new Error(`axios: unexpected answer ${status}`);
          },
          deadline,
        );
      },
      close: async () => httpAgent.destroy(),
    };
  }

  function readAllContender(name, label, connector) {
    const transport = sdk.createTransport();
    return {
      name,
      label,
      run(count, concurrency, deadline) {
        return pool(
          count,
          concurrency,
          async () => {
            const { records } = await sdk.readAll(connector, 'items.get', {
              input: { id: 'a' },
              connection: { baseUrl },
              credential,
              transport,
              log: quiet,
            });
            if (records.length !== 1 || records[0].id !== 'a') throw new Error('readAll: unexpected records');
          },
          deadline,
        );
      },
      close: () => transport.close(),
    };
  }

  function httpContender() {
    const transport = sdk.createTransport();
    return {
      name: 'ctxHttp',
      label: 'Plugboard ctx.http.get in one run',
      async run(count, concurrency, deadline) {
        manyDone = 0;
        const { records } = await sdk.readAll(declared, 'items.get_many', {
          input: { id: 'a', count, concurrency, deadline },
          connection: { baseUrl },
          credential,
          transport,
          log: quiet,
        });
        if (records.length !== 1 || records[0].id !== 'a') throw new Error('ctx.http: unexpected records');
        return manyDone;
      },
      close: () => transport.close(),
    };
  }

  const contenders = [
    fetchContender(),
    undiciContender(),
    axiosContender(),
    readAllContender('readAll', 'Plugboard readAll per request', declared),
    httpContender(),
    readAllContender('undeclared', 'Plugboard readAll per request, no budget declared', undeclared),
  ];
  console.log(
    `bench: P1, ${thousands(requests)} GETs per contender per concurrency (${concurrencies.join(', ')}), ${rounds} rounds, server in a child process, Node ${process.versions.node}`,
  );
  console.log(
    `bench: contenders: ${contenders.map((contender) => `${contender.name} (${contender.label})`).join('; ')}`,
  );

  const capped = new Set();
  // rps[concurrency][contender] = per-round requests per second
  const rps = Object.fromEntries(
    concurrencies.map((concurrency) => [
      concurrency,
      Object.fromEntries(contenders.map((contender) => [contender.name, []])),
    ]),
  );
  try {
    if (warmup > 0) {
      for (const contender of contenders) {
        for (const concurrency of concurrencies) await contender.run(warmup, concurrency, performance.now() + 2_000);
      }
    }
    for (let round = 0; round < rounds; round += 1) {
      // A B C D E, then B C D E A, ...: no contender always runs first or last.
      const order = contenders.map((_, index) => contenders[(index + round) % contenders.length]);
      const line = [];
      for (const concurrency of concurrencies) {
        for (const contender of order) {
          const started = performance.now();
          const done = await contender.run(requests, concurrency, started + maxMs);
          const seconds = (performance.now() - started) / 1000;
          rps[concurrency][contender.name].push(done / seconds);
          if (done < requests) capped.add(`${contender.name}@${concurrency}`);
          line.push(`${contender.name}@${concurrency} ${thousands(done / seconds)}`);
        }
      }
      console.log(`bench: round ${round + 1}: ${line.join(', ')} req/s`);
    }
  } finally {
    await Promise.all(contenders.map((contender) => contender.close()));
    await server.stop();
  }

  if (capped.size > 0)
    console.log(
      `bench: stopped at ${maxMs / 1000} s before ${thousands(requests)} requests: ${[...capped].join(', ')}`,
    );
  const results = {};
  let meets = true;
  for (const concurrency of concurrencies) {
    const medians = Object.fromEntries(
      contenders.map((contender) => [contender.name, median(rps[concurrency][contender.name])]),
    );
    const ratios = {
      readAllVsFetch: ratio(medians.readAll, medians.fetch),
      readAllVsAxios: ratio(medians.readAll, medians.axios),
      readAllVsUndici: ratio(medians.readAll, medians.undici),
      ctxHttpVsFetch: ratio(medians.ctxHttp, medians.fetch),
      ctxHttpVsAxios: ratio(medians.ctxHttp, medians.axios),
      undeclaredVsFetch: ratio(medians.undeclared, medians.fetch),
    };
    const ok = {
      // The undici.request target is the per-run work's: one run per request.
      readAll: ratios.readAllVsFetch >= 0.9 && ratios.readAllVsAxios >= 1.5 && ratios.readAllVsUndici >= 0.9,
      ctxHttp: ratios.ctxHttpVsFetch >= 0.9 && ratios.ctxHttpVsAxios >= 1.5,
    };
    meets &&= ok.readAll && ok.ctxHttp;
    console.log(
      `bench: concurrency ${concurrency}, median req/s: ${contenders.map((contender) => `${contender.name} ${thousands(medians[contender.name])}`).join(', ')}`,
    );
    console.log(
      `bench: concurrency ${concurrency}: readAll/fetch ${times(ratios.readAllVsFetch)}, readAll/axios ${times(ratios.readAllVsAxios)}, readAll/undici ${times(ratios.readAllVsUndici)} (target >= 0.90x, >= 1.50x and >= 0.90x: ${ok.readAll ? 'yes' : 'NO'}); ` +
        `ctx.http/fetch ${times(ratios.ctxHttpVsFetch)}, ctx.http/axios ${times(ratios.ctxHttpVsAxios)} (${ok.ctxHttp ? 'yes' : 'NO'}); ` +
        `no budget declared (one at a time): readAll/fetch ${times(ratios.undeclaredVsFetch)}, no target`,
    );
    results[`c${concurrency}`] = {
      rps: Object.fromEntries(Object.entries(medians).map(([name, value]) => [name, Math.round(value)])),
      ratios: Object.fromEntries(Object.entries(ratios).map(([name, value]) => [name, round2(value)])),
      meetsTargets: ok.readAll && ok.ctxHttp,
    };
  }
  console.log(
    JSON.stringify({
      bench: 'p1-requests',
      requests,
      rounds,
      maxSeconds: maxMs / 1000,
      capped: [...capped],
      node: process.versions.node,
      targets: { vsFetch: 0.9, vsAxios: 1.5, readAllVsUndici: 0.9 },
      meetsTargets: meets,
      results,
    }),
  );
}
