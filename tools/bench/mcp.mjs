#!/usr/bin/env node
// P7: connector actions as MCP tools (`plugboard mcp`, the built CLI and `@plugboard/mcp`). Not a test.
//
// - calls: `--calls` `tools/call` of Descript's `status.get` against the Descript simulator in a
//   child process, through the official MCP client: over stdio (the client starts `plugboard mcp`)
//   and over Streamable HTTP (`plugboard mcp --http 0`, a fresh server per request), beside the
//   same run through the executor in this process. The three take turns in rounds of `--round`
//   calls after a warm-up of each; each call's latency is timed alone. Added latency: a mode's
//   p50 (p99) less the executor's. Targets: p50 at most 0.5 ms over stdio and 1 ms over HTTP.
// - list: `tools/list` of a connector of 100 actions served by `serveHttp` in this process and
//   asked by the official client over HTTP, `--lists` times: median. Target under 5 ms.
//
//   ./pbw build && node tools/bench/mcp.mjs [--calls 1000] [--round 100] [--warmup 100] [--lists 200]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { built, builtPath, median, positiveInteger, root, round2, startChild, startDescriptSimulator } from './lib.mjs';

const client = await import(builtPath('packages/mcp/node_modules/@modelcontextprotocol/client/dist/index.mjs'));
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
      warmup: { type: 'string', default: '100' },
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
  const times = [];
  for (let index = 0; index < options.lists; index += 1) {
    const started = performance.now();
    const { tools } = await mcpClient.listTools();
    times.push(performance.now() - started);
    if (tools.length !== 100) throw new Error(`bench: tools/list gave ${tools.length} tools`);
  }
  await mcpClient.close();
  await served.close();
  return times;
}

async function main() {
  const options = readOptions();
  const sim = await startDescriptSimulator({ size: 10, seed: 1 });
  const modes = {};
  const latencies = { executor: [], stdio: [], http: [] };
  try {
    modes.executor = await inProcess(sim);
    modes.stdio = await overStdio(sim);
    modes.http = await overHttp(sim);
    for (const mode of Object.values(modes)) for (let index = 0; index < options.warmup; index += 1) await mode.call();
    const names = Object.keys(modes);
    for (let done = 0, round = 0; done < options.calls; done += options.round, round += 1) {
      const order = names.map((_, index) => names[(index + round) % names.length]);
      for (const name of order)
        for (let index = 0; index < Math.min(options.round, options.calls - done); index += 1) {
          const started = performance.now();
          await modes[name].call();
          latencies[name].push(performance.now() - started);
        }
    }
  } finally {
    for (const mode of Object.values(modes)) await mode.close();
    await sim.stop();
  }
  const lists = await listTimes(options);
  const base = { p50: percentile(latencies.executor, 0.5), p99: percentile(latencies.executor, 0.99) };
  const figures = {};
  for (const name of ['stdio', 'http']) {
    const p50 = percentile(latencies[name], 0.5);
    const p99 = percentile(latencies[name], 0.99);
    figures[name] = {
      p50: round2(p50),
      p99: round2(p99),
      addedP50: round2(p50 - base.p50),
      addedP99: round2(p99 - base.p99),
    };
  }
  const listMedian = median(lists);
  const verdict = (value, target) => `target ${target} ms: ${value <= target ? 'met' : 'not met'}`;
  console.log(
    `bench: ${options.calls} tools/call of status.get each: executor in process p50 ${round2(base.p50)} ms, p99 ${round2(base.p99)} ms; stdio p50 ${figures.stdio.p50} ms (+${figures.stdio.addedP50} ms, ${verdict(figures.stdio.addedP50, 0.5)}), p99 ${figures.stdio.p99} ms (+${figures.stdio.addedP99} ms); HTTP p50 ${figures.http.p50} ms (+${figures.http.addedP50} ms, ${verdict(figures.http.addedP50, 1)}), p99 ${figures.http.p99} ms (+${figures.http.addedP99} ms)`,
  );
  console.log(
    `bench: tools/list of 100 actions over HTTP, ${options.lists} times: median ${round2(listMedian)} ms (${verdict(listMedian, 5)})`,
  );
  console.log(
    JSON.stringify({
      bench: 'mcp',
      ...options,
      executor: { p50: round2(base.p50), p99: round2(base.p99) },
      ...figures,
      toolsListMs: round2(listMedian),
    }),
  );
}

await main();
