#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startInsuranceSimulator } from './simulator.js';

// `node dist/main.js [--port N] [--seed N]`: prints {"url","apiKey"} as one JSON line, then serves until SIGINT/SIGTERM.
const { values } = parseArgs({
  options: { port: { type: 'string' }, seed: { type: 'string' } },
  strict: true,
});

function integerOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`--${name} must be a non-negative integer, got ${text}\n`);
    process.exit(2);
  }
  return value;
}

const port = integerOption('port', values.port);
const seed = integerOption('seed', values.seed);
const simulator = await startInsuranceSimulator({ port, seed });
process.stdout.write(`${JSON.stringify({ url: simulator.url, apiKey: simulator.apiKey })}\n`);

const stop = (): void => {
  void simulator.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
