import descript from '@plugboard/connector-descript';
import insurance from '@plugboard/connector-insurance';
import type { Connector } from '@plugboard/sdk';
import type { FaultServer } from '@plugboard/testing';
import type { CliIo } from '../src/index.js';

/** The credential the shop's provider accepts in the CLI's tests. */
export const TOKEN = 'cli-test-token-5e1d';

/** The requests a provider saw, as `METHOD /path?query`. */
export function seen(server: FaultServer): string[] {
  return server.requests.map(
    (request) => `${request.method} ${request.path}${request.query.size > 0 ? `?${request.query}` : ''}`,
  );
}

/** Buffers standing in for the process streams. */
export function bufferIo(env: Record<string, string | undefined> = {}, tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text), isTTY: tty, columns: 80 },
    env,
    cwd: process.cwd(),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

/** The pack's connectors by key, as a host program passes connectors to runCli. */
export const PACK: ReadonlyMap<string, Connector> = new Map(
  [descript, insurance].map((connector) => [connector.key, connector]),
);
