import { afterEach, beforeEach } from 'vitest';
import { createTransport, type LogEntry, type RunOptions, type Transport } from '../../src/index.js';
import { type Handler, startServer, type TestServer } from './server.js';

/**
 * What every SDK test that talks to a server shares: a fresh transport for each test,
 * the test's server, closed after it, the credential, and a quiet log sink.
 *
 * ```ts
 * const h = useHarness();
 * const server = await h.start((req, res) => json(res, 200, {}));
 * await readAll(example, 'items.get', h.options({ input: { id: 'a' }, connection: { baseUrl: server.url } }));
 * ```
 */

/** The credential of every run that does not plant its own. */
export const credential = () => 'test-credential-1234';

/** Retry settings that keep a test quick: `retries` after the first attempt, 10 ms to `maxTimeoutMs` apart. */
export function fastRetry(
  retries: number,
  maxTimeoutMs = 20,
): { retries: number; minTimeoutMs: number; maxTimeoutMs: number } {
  return { retries, minTimeoutMs: 10, maxTimeoutMs };
}

export interface Harness {
  /** This test's transport. */
  readonly transport: Transport;
  /** This test's server, as `start` last gave it. */
  readonly server: TestServer;
  /** What this test's runs logged through the default sink of `options` (kept off stderr). */
  readonly logs: LogEntry[];
  /** Starts this test's server, closing the one it replaces. */
  start(handler: Handler): Promise<TestServer>;
  /** Closes this test's server now. */
  stop(): Promise<void>;
  /** Run options with the shared credential, this test's transport and the quiet log sink; `options` may override each. */
  options(options: RunOptions): RunOptions;
}

/** Registers the hooks in the calling test file: call it once, at the top level. */
export function useHarness(): Harness {
  let transport: Transport | undefined;
  let server: TestServer | undefined;
  let logs: LogEntry[] = [];

  const stop = async () => {
    const closing = server;
    server = undefined;
    await closing?.close();
  };

  beforeEach(() => {
    transport = createTransport();
    logs = [];
  });
  afterEach(async () => {
    await transport?.close();
    transport = undefined;
    await stop();
  });

  const current = () => {
    if (!transport) throw new Error('the harness has a transport only while a test runs');
    return transport;
  };

  return {
    get transport() {
      return current();
    },
    get server() {
      if (!server) throw new Error('this test has not started a server');
      return server;
    },
    get logs() {
      return logs;
    },
    async start(handler) {
      await stop();
      server = await startServer(handler);
      return server;
    },
    stop,
    options(options) {
      const sink = logs;
      return { credential, transport: current(), log: (entry) => void sink.push(entry), ...options };
    },
  };
}
