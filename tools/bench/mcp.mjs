#!/usr/bin/env node
// P7: connector actions as MCP tools (`plugboard mcp`, the built CLI and `@plugboard/mcp`). Not a test.
//
// - calls: `--calls` `tools/call` of Descript's `status.get` against the Descript simulator in a
//   child process, over stdio (`plugboard mcp` started by the client) and over Streamable HTTP
//   (`plugboard mcp --http 0` in a child process, a fresh server per request), each asked by two
//   clients: a minimal JSON-RPC client (one line a message on the child's pipes; one undici
//   keep-alive connection, the headers the official client sends), which costs next to nothing,
//   so its latency is what the server and the transport add; and the official MCP client, whose
//   own cost a call is included. Beside them, the same run through the executor in this process.
//   The minimal clients take turns with the executor in rounds of `--round` calls, then the
//   official client's two modes do (apart: its garbage, collected in this process, would land
//   on the others' calls), each after a warm-up of `--warmup` calls (a server answers agents for
//   hours: V8 has compiled its paths after some hundreds of calls); each call is timed alone.
//   Added latency: a mode's p50 (p99) less the executor's beside it. Targets, on what the server
//   adds (the minimal client): p50 at most 0.5 ms over stdio and 1 ms over HTTP.
// - list: `tools/list` of a connector of 100 actions served by `serveHttp` in this process,
//   asked `--lists` times over HTTP by each client, in turns: medians. Target, on what the server
//   takes (the minimal client): under 5 ms.
//
//   ./pbw build && node tools/bench/mcp.mjs [--calls 1000] [--round 100] [--warmup 1000] [--lists 200]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { built, builtPath, median, positiveInteger, root, round2, startChild, startDescriptSimulator } from './lib.mjs';

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const client = await import(builtPath('packages/mcp/node_modules/@modelcontextprotocol/client/dist/index.mjs'));
const undici = await import('undici');
const { StdioClientTransport } = await import(
  builtPath('packages/mcp/node_modules/@modelcontextprotocol/client/dist/stdio.mjs')
);
const CLI = builtPath('packages/cli/dist/main.js');
const DESCRIPT = join(root, 'connectors', 'descript');

const percentile = (list, share) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * share))];

function readOptions() {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '1000' },
      round: { type: 'string', default: '100' },
      warmup: { type: 'string', default: '1000' },
      lists: { type: 'string', default: '200' },
    },
  });
  return {
    calls: positiveInteger('calls', values.calls),
    round: positiveInteger('round', values.round),
    warmup: positiveInteger('warmup', values.warmup),
    lists: positiveInteger('lists', values.lists),
  };
}

/** The executor in this process, on the simulator: one `status.get` a call. */
async function inProcess(sim) {
  const sdk = await built('packages/sdk/dist/host.js');
  const { descript } = await built('connectors/descript/dist/index.js');
  const transport = sdk.createHostTransport({ via: 'http', network: { allow: ['127.0.0.1/32'] } });
  const executor = sdk.createExecutor({
    connectors: [descript],
    resolveConnection: (id) => ({ id, baseUrl: sim.url }),
    resolveCredential: () => sim.token,
    stores: sdk.memoryStore(),
    transport,
    log: () => undefined,
  });
  const call = async () => {
    let records = 0;
    await executor.execute({
      connectorKey: 'descript',
      action: 'status.get',
      connectionId: 'drive-1',
      input: {},
      onPage: (page) => void (records += page.records.length),
    });
    if (records !== 1) throw new Error('bench: status.get read no record');
  };
  return { call, close: () => transport.close() };
}

/** The official client on a connection to `plugboard mcp`: one `tools/call` of status_get a call. */
async function connected(transport) {
  const mcp = new client.Client({ name: 'plugboard-bench', version: '1.0.0' });
  await mcp.connect(transport);
  const call = async () => {
    const result = await mcp.callTool({ name: 'descript_status_get', arguments: {} });
    if (result.isError) throw new Error(`bench: status_get failed: ${JSON.stringify(result.content)}`);
  };
  return { call, close: () => mcp.close() };
}

const cliEnv = (sim) => ({ ...process.env, PLUGBOARD_CREDENTIAL: sim.token, PLUGBOARD_ALLOW_NETWORK: '127.0.0.1/32' });

async function overStdio(sim) {
  const args = [CLI, 'mcp', '--connector', DESCRIPT, '--base-url', sim.url, '--caller', 'bench'];
  return connected(new StdioClientTransport({ command: process.execPath, args, env: cliEnv(sim), stderr: 'ignore' }));
}

async function overHttp(sim) {
  const server = await startChild([CLI, 'mcp', '--connector', DESCRIPT, '--base-url', sim.url, '--http', '0'], {
    env: cliEnv(sim),
    name: 'plugboard mcp --http',
  });
  const served = await connected(new client.StreamableHTTPClientTransport(new URL(server.info.url)));
  return { call: served.call, close: async () => (await served.close(), await server.stop()) };
}

/** A JSON-RPC request of the minimal clients, of `id`. */
const message = (id, method, params) => ({ jsonrpc: '2.0', id, method, params });
const INITIALIZE = {
  protocolVersion: client.LATEST_PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'plugboard-bench-minimal', version: '1.0.0' },
};
const STATUS_GET = { name: 'descript_status_get', arguments: {} };

function checkedCall(answer) {
  if (answer.error || answer.result?.isError) throw new Error(`bench: status_get failed: ${JSON.stringify(answer)}`);
}

/** The minimal client over stdio: a line a message on the pipes of `plugboard mcp`, answers matched by id. */
async function minimalStdio(sim) {
  const args = [CLI, 'mcp', '--connector', DESCRIPT, '--base-url', sim.url, '--caller', 'bench'];
  const child = spawn(process.execPath, args, { env: cliEnv(sim), stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line);
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  let id = 0;
  const ask = (method, params) =>
    new Promise((resolve) => {
      id += 1;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify(message(id, method, params))}\n`);
    });
  await ask('initialize', INITIALIZE);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    call: async () => checkedCall(await ask('tools/call', STATUS_GET)),
    close: async () => (child.stdin.end(), await exited),
  };
}

/** The minimal client over HTTP: one keep-alive connection, each message a POST with the official client's headers. */
function minimalHttpClient(url) {
  const dispatcher = new undici.Agent({ connections: 1 });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': client.LATEST_PROTOCOL_VERSION,
  };
  let id = 0;
  const ask = async (method, params) => {
    id += 1;
    const body = JSON.stringify(message(id, method, params));
    const answer = await undici.request(url, { method: 'POST', dispatcher, headers, body });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`bench: ${method} answered ${answer.statusCode} ${text}`);
    return JSON.parse(text);
  };
  return { ask, close: () => dispatcher.close() };
}

async function minimalHttp(sim) {
  const server = await startChild([CLI, 'mcp', '--connector', DESCRIPT, '--base-url', sim.url, '--http', '0'], {
    env: cliEnv(sim),
    name: 'plugboard mcp --http',
  });
  const http = minimalHttpClient(server.info.url);
  await http.ask('initialize', INITIALIZE);
  return {
    call: async () => checkedCall(await http.ask('tools/call', STATUS_GET)),
    close: async () => (await http.close(), await server.stop()),
  };
}

/** `tools/list` of 100 actions over HTTP, each asked alone: milliseconds a list. */
async function listTimes(options) {
  const { bearerToken, defineAction, defineConnector } = await built('packages/sdk/dist/index.js');
  const { z } = await import('zod');
  const mcp = await built('packages/mcp/dist/index.js');
  const actions = Array.from({ length: 100 }, (_, index) =>
    defineAction({
      key: `things_${index}.list`,
      label: `List things ${index}`,
      description: `Lists the things of kind ${index}, newest first.`,
      direction: 'source',
      entity: z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: `Thing${index}` }),
      input: z.object({ limit: z.number().int().min(1).max(100).default(20), query: z.string().optional() }),
      async *read() {},
    }),
  );
  const connector = defineConnector({
    key: 'many',
    name: 'Many',
    version: '1.0.0',
    category: 'productivity',
    status: 'beta',
    summary: 'A connector of 100 actions.',
    auth: [bearerToken()],
    actions,
  });
  const served = await mcp.serveHttp({
    tools: mcp.actionTools([connector]),
    executor: undefined,
    connectionId: 'c',
    environment: 'sandbox',
    checkpoints: undefined,
    maxTools: 1000,
  });
  const mcpClient = new client.Client({ name: 'plugboard-bench', version: '1.0.0' });
  await mcpClient.connect(new client.StreamableHTTPClientTransport(new URL(served.url)));
  const minimal = minimalHttpClient(served.url);
  await minimal.ask('initialize', INITIALIZE);
  const lists = {
    official: async () => (await mcpClient.listTools()).tools,
    minimal: async () => (await minimal.ask('tools/list', {})).result.tools,
  };
  const times = { official: [], minimal: [] };
  for (let index = 0; index < options.lists; index += 1)
    for (const [name, list] of Object.entries(lists)) {
      const started = performance.now();
      const tools = await list();
      times[name].push(performance.now() - started);
      if (tools.length !== 100) throw new Error(`bench: tools/list gave ${tools.length} tools`);
    }
  await mcpClient.close();
  await minimal.close();
  await served.close();
  return times;
}

const MODES = {
  stdio: 'stdio, minimal client',
  http: 'HTTP, minimal client',
  officialStdio: 'stdio, official client',
  officialHttp: 'HTTP, official client',
};
const TARGETS = { stdio: 0.5, http: 1 };

const OPENERS = {
  executor: inProcess,
  stdio: minimalStdio,
  http: minimalHttp,
  officialStdio: overStdio,
  officialHttp: overHttp,
};

/**
 * The latencies of `status.get` of the executor and the modes `names`, in turns of `--round` after a
 * warm-up of each. The minimal clients and the official one are measured apart, each beside the
 * executor: the official client's garbage, collected in this process, would land on the others' calls.
 */
async function callLatencies(options, sim, names) {
  const modes = {};
  const latencies = Object.fromEntries(['executor', ...names].map((name) => [name, []]));
  try {
    for (const name of Object.keys(latencies)) modes[name] = await OPENERS[name](sim);
    for (const mode of Object.values(modes)) for (let index = 0; index < options.warmup; index += 1) await mode.call();
    const order = Object.keys(modes);
    for (let done = 0, round = 0; done < options.calls; done += options.round, round += 1)
      for (const name of order.map((_, index) => order[(index + round) % order.length]))
        for (let index = 0; index < Math.min(options.round, options.calls - done); index += 1) {
          const started = performance.now();
          await modes[name].call();
          latencies[name].push(performance.now() - started);
        }
  } finally {
    for (const mode of Object.values(modes)) await mode.close();
  }
  return latencies;
}

/** A mode's p50 and p99, and what it adds to the executor's measured beside it. */
function figuresOf(latencies, name) {
  const base = { p50: percentile(latencies.executor, 0.5), p99: percentile(latencies.executor, 0.99) };
  const p50 = percentile(latencies[name], 0.5);
  const p99 = percentile(latencies[name], 0.99);
  return {
    p50: round2(p50),
    p99: round2(p99),
    addedP50: round2(p50 - base.p50),
    addedP99: round2(p99 - base.p99),
    executorP50: round2(base.p50),
  };
}

async function main() {
  const options = readOptions();
  const sim = await startDescriptSimulator({ size: 10, seed: 1 });
  const figures = {};
  try {
    for (const names of [
      ['stdio', 'http'],
      ['officialStdio', 'officialHttp'],
    ]) {
      const latencies = await callLatencies(options, sim, names);
      for (const name of names) figures[name] = figuresOf(latencies, name);
    }
  } finally {
    await sim.stop();
  }
  const lists = await listTimes(options);
  const listMedians = { minimal: round2(median(lists.minimal)), official: round2(median(lists.official)) };
  const verdict = (value, target) => `target ${target} ms: ${value <= target ? 'met' : 'not met'}`;
  const line = (name) => {
    const { p50, p99, addedP50, addedP99, executorP50 } = figures[name];
    const target = TARGETS[name] === undefined ? '' : `, ${verdict(addedP50, TARGETS[name])}`;
    return `${MODES[name]} p50 ${p50} ms (+${addedP50} ms${target}; executor ${executorP50} ms), p99 ${p99} ms (+${addedP99} ms)`;
  };
  console.log(`bench: ${options.calls} tools/call of status.get each: ${Object.keys(MODES).map(line).join('; ')}`);
  console.log(
    `bench: tools/list of 100 actions over HTTP, ${options.lists} times each: minimal client median ${listMedians.minimal} ms (${verdict(listMedians.minimal, 5)}); official client median ${listMedians.official} ms`,
  );
  console.log(
    JSON.stringify({
      bench: 'mcp',
      ...options,
      ...figures,
      toolsListMs: listMedians,
    }),
  );
}

await main();
