#!/usr/bin/env node
// P3, how well the SDK keeps a provider's rate limit. A strict sliding-window provider
// (startWindowServer of @plugboard/testing: it counts each request at its arrival and
// answers 429 with Retry-After once `limit` arrived in the last period) is called by
// callers that each loop readAll of a one-request action until the run's time is up
// (then the runs still waiting are cancelled: every caller stops by itself). Cases:
//
//   declared   the connector declares exactly the provider's limit
//              (rateLimits: { default: { limit, per } }), 32 callers in one process
//   none       no budget declared: the SDK learns the limit from the 429s only
//              (target: one 429 per window, whatever the number of callers)
//   redis      the declared budget shared through Redis by 4 child processes of 8 callers
//              (createHostTransport({ redis: 'redis://127.0.0.1:PORT' }), a redis-server of
//              this script's own on a free port)
//   none, redis  no budget declared, shared through Redis by the same 4 processes: the
//              fleet learns the limit from its 429s (target: one 429 per window at most,
//              whatever the number of processes)
//
// at 100 requests per second (all four) and at 60 per minute (declared and none). 429s are
// counted at the server (the SDK retries them, which would hide them from the callers).
// Budget used = admitted / (limit x elapsed / period), printed beside admitted / the most a
// strict sliding window admits in the time (limit x the periods begun), which the targets
// use. Targets: declared and redis 0 429s and at least 90 % used; none about one 429 per
// window begun (at most 1.5 on average); none, redis at most one per window. Not a test.
//
//   ./pbw build && node tools/bench/p3-window.mjs [--quick] [--seconds 30] [--per-minute-seconds 180]
//       [--callers 32] [--no-budget-callers 4,32] [--processes 4] [--skip-minute] [--skip-redis]
// --quick runs 10 s of each per-second case and 70 s of each per-minute case.
import { fork, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  built,
  builtPath,
  itemsGetAction,
  integerList,
  positiveInteger,
  round1,
  round2,
  startRedis,
  thousands,
} from './lib.mjs';

const self = fileURLToPath(import.meta.url);
const CREDENTIAL = 'bench-credential-123456';
const PERIOD_MS = { second: 1_000, minute: 60_000 };

const sdk = await built('packages/sdk/dist/index.js');
const host = await built('packages/sdk/dist/host.js');
const { z } = await import('zod');

/** A connector of one `items.get` action; `budget` is its declared `default` budget, or none. */
function windowConnector(budget) {
  return sdk.defineConnector({
    key: 'window',
    name: 'Window',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'One item per request, against a sliding-window provider.',
    auth: sdk.bearerToken(),
    ...(budget ? { rateLimits: { default: budget } } : {}),
    actions: [itemsGetAction(sdk, z)],
  });
}

/**
 * `callers` loops of readAll for `seconds`; at the end the runs still waiting are cancelled.
 * Resolves with the runs that succeeded, were cancelled, or failed (by error code).
 */
async function runCallers({ connector, transport, baseUrl, callers, seconds, connectionId = 'default', tag = 'p' }) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), seconds * 1000);
  const counts = { ok: 0, cancelled: 0, errors: {} };
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      for (let index = 0; !controller.signal.aborted; index += 1) {
        try {
          await sdk.readAll(connector, 'items.get', {
            input: { id: `${tag}${caller}-${index}` },
            connection: { id: connectionId, baseUrl },
            credential: () => CREDENTIAL,
            transport,
            signal: controller.signal,
            log: () => undefined,
          });
          counts.ok += 1;
        } catch (error) {
          if (controller.signal.aborted) {
            counts.cancelled += 1;
          } else {
            const code = error?.code ?? error?.name ?? 'error';
            counts.errors[code] = (counts.errors[code] ?? 0) + 1;
            // A failing run is not retried in a tight loop.
            await sleep(50);
          }
        }
      }
    }),
  );
  clearTimeout(timer);
  return counts;
}

// The provider, in a process of its own so that the callers' work does not delay its clock:
// `node p3-window.mjs --serve JSON` (startWindowServer's options), driven over the IPC channel.
async function serve() {
  const { startWindowServer } = await built('packages/testing/dist/index.js');
  const server = await startWindowServer(JSON.parse(process.argv[3]));
  const counts = () => ({ admitted: server.admitted, rejected: server.rejected, peakInWindow: server.peakInWindow });
  process.on('message', async (message) => {
    if (message.type === 'reset') server.reset();
    if (message.type === 'close') await server.close();
    process.send({ id: message.id, ...counts() });
    if (message.type === 'close') process.disconnect();
  });
  process.send({ id: 0, url: server.url });
}

/** The provider in a child process: `{ url, counts(), reset(), close() }`, each a round trip. */
async function startWindowChild(options) {
  const child = fork(self, ['--serve', JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  let next = 1;
  child.on('message', (message) => {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const ask = (type) =>
    new Promise((resolve) => {
      const id = next;
      next += 1;
      pending.set(id, resolve);
      child.send({ id, type });
    });
  const ready = await new Promise((resolve, reject) => {
    pending.set(0, resolve);
    child.once('exit', (code) => reject(new Error(`bench: the window server exited (${code}) before it was ready`)));
  });
  return {
    url: ready.url,
    counts: () => ask('counts'),
    reset: () => ask('reset'),
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const counts = await ask('close');
      await exited;
      return counts;
    },
  };
}

// A child process of the Redis case: `node p3-window.mjs --child JSON`. It warms up (one request
// on a budget of its own, so that loading modules and connecting to Redis do not land in the
// measured window), prints {"ready":true}, waits for "go" on stdin, runs its callers, prints its
// counts as one JSON line, closes its transport and exits by itself.
async function child() {
  const settings = JSON.parse(process.argv[3]);
  const connector = windowConnector(settings.budget);
  const transport = host.createHostTransport({ redis: settings.redis });
  const base = { connector, transport, baseUrl: settings.baseUrl };
  await sdk
    .readAll(connector, 'items.get', {
      input: { id: 'warm' },
      connection: { id: `warm-${process.pid}`, baseUrl: settings.baseUrl },
      credential: () => CREDENTIAL,
      transport,
      log: () => undefined,
    })
    .catch(() => undefined);
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  const counts = await runCallers({
    ...base,
    callers: settings.callers,
    seconds: settings.seconds,
    tag: `p${process.pid}-`,
  });
  await transport.close();
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  process.exit(0);
}

async function main() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      seconds: { type: 'string' },
      'per-minute-seconds': { type: 'string' },
      callers: { type: 'string', default: '32' },
      'no-budget-callers': { type: 'string', default: '4,32' },
      processes: { type: 'string', default: '4' },
      'skip-minute': { type: 'boolean', default: false },
      'skip-redis': { type: 'boolean', default: false },
    },
  });
  const seconds = positiveInteger('seconds', values.seconds ?? (values.quick ? '10' : '30'));
  const minuteSeconds = positiveInteger(
    'per-minute-seconds',
    values['per-minute-seconds'] ?? (values.quick ? '70' : '180'),
  );
  const callers = positiveInteger('callers', values.callers);
  const noBudgetCallers = integerList('no-budget-callers', values['no-budget-callers']);
  const processes = positiveInteger('processes', values.processes);

  builtPath('packages/testing/dist/index.js');

  console.log(
    `bench: P3, sliding-window provider; 100/second cases ${seconds} s each${values['skip-minute'] ? '' : `, 60/minute cases ${minuteSeconds} s each`}; ${callers} callers; Node ${process.versions.node}`,
  );

  /** Runs one case against a fresh server and prints and returns its figures. */
  async function measure({ name, budget, declared, callers: count, seconds: length, run, perWindow = 1.5 }) {
    const periodMs = PERIOD_MS[budget.per];
    const server = await startWindowChild({ limit: budget.limit, periodMs });
    let closed;
    let atEnd;
    let started;
    let snapshot;
    const take = () => {
      const elapsedMs = performance.now() - started;
      return server.counts().then((counts) => ({ ...counts, elapsedMs }));
    };
    // Called by `run` when the callers start: the server's counts are taken when the time is up;
    // requests that arrive after it (runs already under way) are not counted.
    const begin = () => {
      started = performance.now();
      snapshot = setTimeout(() => void (atEnd = take()), length * 1000);
    };
    try {
      const counts = await run(server, begin);
      const ended = counts.endedAt ?? performance.now();
      clearTimeout(snapshot);
      atEnd = await (atEnd ?? take());
      closed = await server.close();
      const windows = (length * 1000) / periodMs;
      // Windows begun in that time: a strict sliding window admits at most limit x this many.
      const begun = Math.ceil(windows - 1e-9);
      const result = {
        case: name,
        rate: `${budget.limit}/${budget.per}`,
        declared,
        callers: count,
        seconds: round1(atEnd.elapsedMs / 1000),
        admitted: atEnd.admitted,
        rejected: atEnd.rejected,
        // admitted / (limit x elapsed / period); over 100 % when the time is not a whole number of periods.
        usedPercent: round1((100 * atEnd.admitted) / (budget.limit * windows)),
        // admitted / the most a strict sliding window admits in that time (limit x the periods begun).
        usedOfMostPercent: round1((100 * atEnd.admitted) / (budget.limit * begun)),
        windows: begun,
        rejectedPerWindow: round2(atEnd.rejected / begun),
        perWindow,
        peakInWindow: closed.peakInWindow,
        runs: { ok: counts.ok, cancelled: counts.cancelled, errors: counts.errors },
        // How long the callers took to stop once the time was up.
        stopMs: Math.round(ended - started - length * 1000),
      };
      const target = declared
        ? `target 0 429s and >= 90 % used: ${result.rejected === 0 && result.usedOfMostPercent >= 90 ? 'yes' : 'NO'}`
        : `target about one 429 per window (at most ${perWindow} on average): ${result.rejectedPerWindow <= perWindow ? 'yes' : 'NO'}`;
      const errors = Object.entries(counts.errors)
        .map(([code, n]) => `${code} ${n}`)
        .join(', ');
      console.log(
        `bench: ${result.rate}, ${name}, ${count} callers, ${result.seconds} s: admitted ${thousands(result.admitted)}, 429s ${thousands(result.rejected)} ` +
          `(${result.rejectedPerWindow} per window, ${begun} windows), budget used ${result.usedPercent} % (${result.usedOfMostPercent} % of the most the window allows); ` +
          `runs ok ${thousands(counts.ok)}, cancelled at the end ${counts.cancelled}${errors ? `, failed: ${errors}` : ''}, all stopped ${result.stopMs} ms after the end; ${target}`,
      );
      return result;
    } finally {
      if (!closed) await server.close();
    }
  }

  function inProcess({ budget, declared, callers: count, seconds: length }) {
    return async (server, begin) => {
      const transport = sdk.createTransport();
      try {
        begin();
        return await runCallers({
          connector: windowConnector(declared ? budget : undefined),
          transport,
          baseUrl: server.url,
          callers: count,
          seconds: length,
        });
      } finally {
        await transport.close();
      }
    };
  }

  /** The Redis case: `processes` children of `perChild` callers, started, warmed up, then told to go together. */
  function throughRedis({ budget, declared, redisUrl, perChild, seconds: length }) {
    return async (server, begin) => {
      const children = Array.from({ length: processes }, () => {
        const settings = {
          baseUrl: server.url,
          redis: redisUrl,
          budget: declared ? budget : undefined,
          callers: perChild,
          seconds: length,
        };
        const child = spawn(process.execPath, [self, '--child', JSON.stringify(settings)], {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk) => void (stderr += chunk.toString('utf8')));
        const lines = [];
        const reader = createInterface({ input: child.stdout });
        const waiters = [];
        reader.on('line', (line) => {
          lines.push(line);
          for (const wake of waiters.splice(0)) wake();
        });
        const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
        const nextLine = async (index, timeoutMs) => {
          const deadline = Date.now() + timeoutMs;
          while (lines.length <= index) {
            if (child.exitCode !== null || child.signalCode !== null)
              throw new Error(`bench: a Redis child exited early\n${stderr}`);
            if (Date.now() > deadline)
              throw new Error(`bench: a Redis child said nothing in ${timeoutMs / 1000} s\n${stderr}`);
            await Promise.race([new Promise((wake) => waiters.push(wake)), sleep(100)]);
          }
          return JSON.parse(lines[index]);
        };
        return { child, exited, nextLine, stderr: () => stderr };
      });
      try {
        await Promise.all(children.map((child) => child.nextLine(0, 60_000)));
        // The warm-up requests are not part of the case.
        await server.reset();
        begin();
        for (const { child } of children) child.stdin.write('go\n');
        const results = await Promise.all(children.map((child) => child.nextLine(1, (length + 120) * 1000)));
        const ended = performance.now();
        const exits = await Promise.all(
          children.map(({ exited, child }) =>
            Promise.race([
              exited,
              sleep(30_000, undefined, { ref: false }).then(
                () => (child.kill('SIGKILL'), { code: 'did not exit by itself in 30 s' }),
              ),
            ]),
          ),
        );
        const notClean = exits.filter((exit) => exit.code !== 0);
        if (notClean.length > 0)
          console.log(
            `bench: Redis children that did not end cleanly: ${notClean.map((exit) => exit.code ?? exit.signal).join(', ')}`,
          );
        const counts = { ok: 0, cancelled: 0, errors: {}, endedAt: ended };
        for (const result of results) {
          counts.ok += result.ok;
          counts.cancelled += result.cancelled;
          for (const [code, n] of Object.entries(result.errors)) counts.errors[code] = (counts.errors[code] ?? 0) + n;
        }
        return counts;
      } finally {
        for (const { child } of children)
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    };
  }

  const cases = [];
  const perSecond = { limit: 100, per: 'second' };
  cases.push(
    await measure({
      name: 'declared',
      budget: perSecond,
      declared: true,
      callers,
      seconds,
      run: inProcess({ budget: perSecond, declared: true, callers, seconds }),
    }),
  );
  for (const count of noBudgetCallers) {
    cases.push(
      await measure({
        name: 'none',
        budget: perSecond,
        declared: false,
        callers: count,
        seconds,
        run: inProcess({ budget: perSecond, declared: false, callers: count, seconds }),
      }),
    );
  }
  if (!values['skip-redis']) {
    const redis = await startRedis();
    try {
      const perChild = Math.max(1, Math.round(callers / processes));
      for (const declared of [true, false]) {
        cases.push(
          await measure({
            name: `${declared ? '' : 'none, '}redis, ${processes} processes`,
            budget: perSecond,
            declared,
            callers: perChild * processes,
            seconds,
            run: throughRedis({ budget: perSecond, declared, redisUrl: redis.url, perChild, seconds }),
            perWindow: 1,
          }),
        );
      }
    } finally {
      await redis.stop();
    }
  }
  if (!values['skip-minute']) {
    const perMinute = { limit: 60, per: 'minute' };
    cases.push(
      await measure({
        name: 'declared',
        budget: perMinute,
        declared: true,
        callers,
        seconds: minuteSeconds,
        run: inProcess({ budget: perMinute, declared: true, callers, seconds: minuteSeconds }),
      }),
    );
    cases.push(
      await measure({
        name: 'none',
        budget: perMinute,
        declared: false,
        callers,
        seconds: minuteSeconds,
        run: inProcess({ budget: perMinute, declared: false, callers, seconds: minuteSeconds }),
      }),
    );
  }

  const meets = cases.every((result) =>
    result.declared
      ? result.rejected === 0 && result.usedOfMostPercent >= 90
      : result.rejectedPerWindow <= result.perWindow,
  );
  console.log(
    JSON.stringify({
      bench: 'p3-window',
      quick: values.quick,
      node: process.versions.node,
      meetsTargets: meets,
      cases,
    }),
  );
}

if (process.argv[2] === '--serve') await serve();
else if (process.argv[2] === '--child') await child();
else await main();
