#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startDescriptSimulator } from './simulator.js';

/**
 * `plugboard-simulator-descript [--port N] [--seed N] [--size N] [--openapi PATH] [--rate-limit N/SECONDS] [--latency MS]`
 * Prints `{"url": ..., "token": ..., "driveId": ...}` as one JSON line and serves until SIGINT or SIGTERM.
 */

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    seed: { type: 'string' },
    size: { type: 'string' },
    openapi: { type: 'string' },
    'rate-limit': { type: 'string' },
    latency: { type: 'string' },
  },
});

function integer(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`--${name} needs a non-negative integer, got ${text}`);
  return Number(text);
}

function rateLimit(text: string | undefined): { limit: number; windowMs: number } | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new Error(`--rate-limit needs REQUESTS/SECONDS, e.g. 100/60, got ${text}`);
  return { limit: Number(match[1]), windowMs: Number(match[2]) * 1000 };
}

const port = integer('port', values.port);
const seed = integer('seed', values.seed);
const size = integer('size', values.size);
const limit = rateLimit(values['rate-limit']);
const latencyMs = integer('latency', values.latency);
const simulator = await startDescriptSimulator({
  ...(port !== undefined ? { port } : {}),
  ...(seed !== undefined ? { seed } : {}),
  ...(size !== undefined ? { size } : {}),
  ...(values.openapi ? { openapiPath: values.openapi } : {}),
  ...(limit ? { rateLimit: limit } : {}),
  ...(latencyMs !== undefined ? { latencyMs } : {}),
});
process.stdout.write(`${JSON.stringify({ url: simulator.url, token: simulator.token, driveId: simulator.driveId })}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void simulator.close().then(() => process.exit(0));
  });
}
