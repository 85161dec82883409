import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createHostTransport } from '../../src/host.js';
import { type RateBudget, type RunOptions, readAll, type Transport } from '../../src/index.js';
import { itemsGetConnector } from './connector.js';
import { credential, type Harness } from './harness.js';
import { type RedisServer, startRedis } from './redis.js';
import { json } from './server.js';

/**
 * What the tests of rate budgets shared through Redis have in common: a redis-server of the
 * file's own on 127.0.0.1, Redis options of each test's own, transports closed after each
 * test, a connector on one budget, and a separate process running the built SDK
 * (test/support/shared-budget-child.mjs).
 */

const CHILD = fileURLToPath(new URL('./shared-budget-child.mjs', import.meta.url));
export const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

export interface SharedRedis {
  /** The file's redis-server; undefined when the tests skip (`skipReason` says why). */
  readonly redis: RedisServer | undefined;
  /** A client of the test's own, to look at what the budgets keep. */
  readonly inspector: Redis;
  readonly skipReason: string;
  /** Redis options of their own for each call, so that no test sees another's budgets. */
  options(extra?: { probeTtlMs?: number }): { url: string; prefix: string; probeTtlMs?: number };
  /** A transport on those options, closed after the test. */
  transport(options: { url: string; prefix: string }): Transport;
  /** The Redis server's clock (`TIME`), in ms. */
  now(): Promise<number>;
}

/** Registers the hooks in the calling test file: call it once, at the top level. */
export function useSharedRedis(): SharedRedis {
  let redis: RedisServer | undefined;
  let inspector: Redis | undefined;
  let skipReason = '';
  let prefixes = 0;
  const opened: Transport[] = [];

  beforeAll(async () => {
    const result = await startRedis();
    if (result.server) {
      redis = result.server;
      inspector = new Redis(redis.url);
      return;
    }
    if (process.env.CI) throw new Error(`the shared-budget tests need redis-server on CI: ${result.reason}`);
    skipReason = result.reason;
    console.warn(`skipping the shared-budget tests: ${skipReason}`);
  }, 15 * 60_000);

  afterAll(async () => {
    inspector?.disconnect();
    await redis?.stop();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((transport) => transport.close()));
  });

  return {
    get redis() {
      return redis;
    },
    get inspector() {
      if (!inspector) throw new Error('no redis-server: the test should have skipped');
      return inspector;
    },
    get skipReason() {
      return skipReason;
    },
    options(extra = {}) {
      prefixes += 1;
      return { url: redis!.url, prefix: `plugboard-test-${process.pid}-${prefixes}:`, ...extra };
    },
    transport(options) {
      const transport = createHostTransport({ redis: options });
      opened.push(transport);
      return transport;
    },
    now() {
      if (!inspector) throw new Error('no redis-server: the test should have skipped');
      return redisNow(inspector);
    },
  };
}

/** The Redis server's clock (`TIME`), in whole ms, as `client` reads it. */
export async function redisNow(client: Redis): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

export const item = (id: string) => ({ id, name: `Item ${id}`, updated_at: '2026-11-01T00:00:00Z' });

/** A connector whose `default` budget is `budget`, or undeclared without it. */
export function connectorWith(budget?: RateBudget) {
  return itemsGetConnector({
    key: 'shared',
    name: 'Shared',
    summary: 'A budget several transports share.',
    rateLimits: budget ? { default: budget } : {},
  });
}

export function getItem(
  connector: ReturnType<typeof connectorWith>,
  transport: Transport,
  id: string,
  baseUrl: string,
  retry?: RunOptions['retry'],
) {
  return readAll(connector, 'items.get', {
    input: { id },
    connection: { baseUrl },
    credential,
    transport,
    retry: retry ?? { retries: 4, minTimeoutMs: 10, maxTimeoutMs: 50 },
    log: () => undefined,
  });
}

/** Waits until `check` holds, looking every 10 ms; fails after `timeoutMs` (a guard against a hang, not a measure). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await sleep(10);
  }
}

interface ChildResult {
  ok: number;
  errors: string[];
  ioredisLoaded: boolean;
}

/** Runs test/support/shared-budget-child.mjs; `kill` ends it early. It must exit by itself once done. */
export function runChild(settings: {
  baseUrl: string;
  ids: string[];
  /** The connector's `default` budget; none: undeclared. */
  budget?: RateBudget;
  redis?: unknown;
  /** Sends its requests one after another rather than side by side. */
  sequential?: boolean;
  /** Sends nothing until `go()`; `ready` resolves once it waits for it. */
  barrier?: boolean;
  hideIORedis?: boolean;
  warmUp?: boolean;
  timeoutMs?: number;
  dieMidAnswer?: boolean;
}) {
  if (!existsSync(DIST))
    throw new Error(`${DIST} is missing: build the SDK first (pnpm --filter @plugboard/sdk build)`);
  const child = spawn(process.execPath, [CHILD, JSON.stringify(settings)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stdout.includes('{"ready":true}')) onReady();
  });
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const result = new Promise<ChildResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `the child process did not exit within 45 s (is something left open after transport.close()?)\n${stdout}\n${stderr}`,
        ),
      );
    }, 45_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the child process exited with ${code ?? signal}\n${stdout}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildResult);
      } catch {
        reject(new Error(`the child process printed no result\n${stdout}\n${stderr}`));
      }
    });
  });
  if (!settings.barrier) child.stdin.end();
  return { child, result, ready, go: () => void child.stdin.end('go\n') };
}

/**
 * A server that never finishes its answer to `/items/hang` (the head goes, the body never), and a
 * child process that sent it, once the server has it. The child dies (SIGKILL) mid-request: by
 * itself the moment the head came with `dieMidAnswer` (however late this process notices), else
 * when `kill()` says. `exited` resolves once it is gone; `release()` drops the held answer. `arrivals[i]` is the Redis
 * server's clock read once `server.requests[i]` was there (no earlier than its arrival, however
 * late the server's event loop runs).
 */
export async function dyingMidRequest(
  h: Harness,
  shared: SharedRedis,
  settings: { budget?: RateBudget; redis: unknown; timeoutMs?: number; warmUp?: boolean; dieMidAnswer?: boolean },
) {
  const held: ServerResponse[] = [];
  const arrivals: Promise<number>[] = [];
  const server = await h.start((req, res) => {
    arrivals.push(shared.now());
    if (req.path !== '/items/hang') return json(res, 200, item(req.path.split('/').pop()!));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    held.push(res);
  });
  const doomed = runChild({ baseUrl: server.url, ids: ['hang'], ...settings });
  const exited = once(doomed.child, 'exit').then(() => undefined);
  doomed.result.catch(() => undefined);
  // A fresh process on a loaded machine can take many seconds to send its first request.
  await until(() => server.requests.some((request) => request.path === '/items/hang'), 40_000);
  return {
    server,
    arrivals,
    exited,
    kill: () => void doomed.child.kill('SIGKILL'),
    release: () => {
      for (const res of held) res.destroy();
    },
  };
}
