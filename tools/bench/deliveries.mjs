#!/usr/bin/env node
// The trigger receiver (`plugboard triggers serve` of the built CLI) under signed deliveries. Not a test.
//
// - rate: 1 KB deliveries signed as rule 13 says, each with a fresh event id and timestamp, sent
//   by `--concurrency` senders on one undici keep-alive pool, to the receiver (`--triggers`
//   triggers without `run` in its config file: each delivery verified, its event id claimed durably, its receipt flushed, nothing
//   started) and to a bare node:http server that only reads the body and checks the same
//   HMAC. Beside them, for scale, the same bare server flushing each delivery's event id to a
//   file before it answers (one `fdatasync` a batch, as the receiver's group commit does): what
//   any receiver that keeps a delivery on disk before answering can reach at most on this disk
//   and these senders. And the lean server: the least a receiver doing the issue's work does,
//   flushing nothing: the SDK's `verifyDelivery`, the body's SHA-256 and JSON, and a JSON line a
//   delivery appended to a file (one write a batch, never flushed). With `--bare-work MICROS`, also
//   the bare server kept busy that many µs a delivery before it answers: how much work of its
//   own a receiver may do on this machine and keep a given ratio. Each server runs in a child
//   process of its own, so the senders' CPU (this process) counts against none; each server's CPU
//   a delivery (all its threads, user and system, from /proc/PID/stat) is printed beside its rate. The order of the servers turns each round after a warm-up of
//   each; deliveries per second are medians over the rounds. Target: the receiver at least 0.7x
//   the bare server.
// - flood: `--flood-senders` senders at once each stream a 10 MB chunked body (no
//   Content-Length, so the size is only known while reading) to a trigger whose `maxBodyBytes`
//   is 64 KB. The receiver's RSS (from /proc) is taken idle, then its peak over each flood:
//   VmHWM after the kernel's peak was reset (`/proc/PID/clear_refs`), and the largest VmRSS
//   sampled every 5 ms. Floods follow one another in the same receiver (`--flood-rounds`), so
//   the figure includes what the first flood left for the garbage collector. Target: the peak
//   within 20 MB of idle. A sender is answered 413, or finds its connection reset when the
//   receiver drops the socket while it is still writing. The receiver is `plugboard triggers
//   serve` (one trigger), then, for contrast, the package's receiver (`createReceiver`) in a child
//   process of this script, with Node's defaults (the command bounds its young generation).
//
// The receiver's state folder (`--state`, default a fresh folder under the system's temporary
// folder) is where its fsyncs go: the figures are those of that folder's disk.
//
//   ./pbw build && node tools/bench/deliveries.mjs [--deliveries 2000] [--rounds 6] [--concurrency 16] [--warmup 500] [--triggers 4] [--flood-senders 64] [--flood-rounds 10] [--state DIR] [--skip-flood] [--bare-work MICROS]
import { createHmac, hash, randomUUID, timingSafeEqual } from 'node:crypto';
import { fdatasync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  built,
  builtPath,
  median,
  pool,
  positiveInteger,
  ratio,
  round1,
  round2,
  startChild,
  thousands,
  times,
} from './lib.mjs';

const RATIO_TARGET = 0.7;
const RSS_TARGET_MB = 20;
const SECRET = 'whsec_bench_deliveries_5f0c9a1e7b3d4c2a';
const BODY_BYTES = 1024;
const FLOOD_LIMIT = 64 * 1024;
const FLOOD_BYTES = 10 * 1024 * 1024;

if (process.argv[2] === '--serve') await serve(process.argv[3], process.argv.slice(4));
else await main();

/**
 * Appends lines to a file in the state folder and flushes them (`fdatasync`) before it resolves:
 * lines that come while a flush is under way go together in the next one, as the receiver's do.
 */
function flushedAppends(stateDir) {
  mkdirSync(stateDir, { recursive: true });
  const fd = openSync(join(stateDir, 'flushed.log'), 'a');
  let waiting = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      writeSync(fd, batch.map((entry) => entry.line).join(''));
      await new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
      for (const entry of batch) entry.resolve();
    }
    flushing = false;
  };
  return (line) =>
    new Promise((resolve) => {
      waiting.push({ line, resolve });
      if (!flushing) void flush();
    });
}

/** Appends lines to a file in the state folder, a batch a write, without flushing them. */
function unflushedAppends(stateDir) {
  mkdirSync(stateDir, { recursive: true });
  const fd = openSync(join(stateDir, 'lean.log'), 'a');
  const waiting = [];
  return (line) => {
    if (waiting.length === 0) queueMicrotask(() => writeSync(fd, waiting.splice(0).join('')));
    waiting.push(line);
  };
}

/**
 * The lean contender: what a receiver doing the issue's work does at least, flushing nothing. The
 * SDK's `verifyDelivery`, the body's SHA-256 and JSON, a receipt's JSON line appended, the answer.
 */
async function serveLean(stateDir) {
  const { verifyDelivery } = await built('packages/sdk/dist/host.js');
  const append = unflushedAppends(stateDir);
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const now = Date.now();
      const verdict = verifyDelivery({
        headers: request.headers,
        body,
        secret: SECRET,
        timestampToleranceSeconds: 300,
        now,
      });
      const payloadSha256 = hash('sha256', body, 'hex');
      const value = verdict.ok ? JSON.parse(body.toString('utf8')) : undefined;
      const answer = JSON.stringify({ accepted: verdict.ok, deliveryId: `dlv_${randomUUID()}`, payloadSha256 });
      if (value) {
        const receivedAt = new Date(now).toISOString();
        append(`${JSON.stringify({ eventId: verdict.eventId, receivedAt, payloadSha256, records: value.records })}\n`);
      }
      response.writeHead(verdict.ok ? 200 : 401, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(answer),
      });
      response.end(answer);
    });
  });
  listenBare(server, 'pub_lean');
}

function listenBare(server, publicId) {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const base = `http://127.0.0.1:${server.address().port}/api/connect/triggers/`;
    process.stdout.write(`${JSON.stringify({ urls: [`${base}${publicId}`] })}\n`);
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

/** Keeps this thread busy for `micros` µs: work of a known size, as a receiver's own would be. */
function busy(micros) {
  const until = performance.now() + micros / 1000;
  while (performance.now() < until);
}

/**
 * The bare contender: reads the body, checks the same HMAC, answers 200. With `stateDir` (the
 * flushed bare server), it first appends the event id to a file there and flushes it, as any
 * receiver that keeps a delivery on disk before answering must: the most such a receiver can do.
 * With `workMicros` (the worked bare server), it is kept busy that long a delivery before it answers.
 */
function serveBare(stateDir, workMicros = 0) {
  const accepted = Buffer.from('{"accepted":true}');
  const keep = stateDir ? flushedAppends(stateDir) : undefined;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      const { 'x-platform-timestamp': timestamp, 'x-platform-event-id': eventId } = request.headers;
      const expected = createHmac('sha256', SECRET)
        .update(`v1:${timestamp}:${eventId}:`)
        .update(Buffer.concat(chunks))
        .digest();
      const given = Buffer.from(String(request.headers['x-platform-signature']).slice(3), 'hex');
      const ok = given.length === expected.length && timingSafeEqual(given, expected);
      if (ok && keep) await keep(`${eventId}\n`);
      if (workMicros > 0) busy(workMicros);
      response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json', 'content-length': accepted.length });
      response.end(accepted);
    });
  });
  listenBare(server, 'pub_bare');
}

/** `count` triggers without `run`, refusing bodies over `maxBodyBytes`, their secret in BENCH_TRIGGER_SECRET. */
function benchTriggers(count, maxBodyBytes, limits) {
  return Array.from({ length: count }, (_, index) => ({
    triggerId: `trg_bench_${index}`,
    url: `/api/connect/triggers/pub_bench_${index}`,
    environment: 'sandbox',
    status: 'active',
    maxBodyBytes,
    maxDeliveriesPerMinute: limits.maxDeliveriesPerMinute,
    timestampToleranceSeconds: 300,
    inputRetentionDays: 1,
    previousSecretValidUntil: null,
    secretEnv: 'BENCH_TRIGGER_SECRET',
  }));
}

/** The receiver of the built package in this script's child process, without the command's bound: Node's defaults. */
async function serveReceiver(stateDir, count, maxBodyBytes) {
  const { createReceiver, TRIGGER_LIMITS } = await built('packages/triggers/dist/index.js');
  const triggers = benchTriggers(count, maxBodyBytes, TRIGGER_LIMITS);
  const receiver = createReceiver({ config: { triggers }, stateDir, env: { BENCH_TRIGGER_SECRET: SECRET } });
  await receiver.listen(0);
  process.stdout.write(`${JSON.stringify({ urls: receiver.addresses().map((address) => address.url) })}\n`);
  process.once('SIGTERM', () => receiver.close().then(() => process.exit(0)));
}

async function serve(kind, [stateDir, count, maxBodyBytes] = []) {
  if (kind === 'bare') serveBare();
  else if (kind === 'flushed') serveBare(stateDir);
  else if (kind === 'worked') serveBare(undefined, Number(stateDir));
  else if (kind === 'lean') await serveLean(stateDir);
  else await serveReceiver(stateDir, Number(count), Number(maxBodyBytes));
}

/** A 1 KB JSON body of one record, padded to exactly `BODY_BYTES`. */
function deliveryBody() {
  const text = JSON.stringify({ type: 'order.created', records: [{ id: 'ord_1', note: '' }] });
  return JSON.stringify({
    type: 'order.created',
    records: [{ id: 'ord_1', note: 'x'.repeat(BODY_BYTES - Buffer.byteLength(text)) }],
  });
}

/** Sends `count` fresh deliveries, `concurrency` at a time, round-robin over `urls`; deliveries per second. */
async function sendRound(sdk, dispatcher, undici, urls, count, concurrency) {
  const body = deliveryBody();
  const started = performance.now();
  await pool(count, concurrency, async (index) => {
    const eventId = `evt_${randomUUID()}`;
    const headers = sdk.deliveryHeaders({ secret: SECRET, timestamp: Math.floor(Date.now() / 1000), eventId, body });
    const answer = await undici.request(urls[index % urls.length], {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200 || text.includes('"duplicate":true'))
      throw new Error(`bench: a delivery was answered ${answer.statusCode} ${text.slice(0, 200)}`);
  });
  return count / ((performance.now() - started) / 1000);
}

/** CPU time a process has used, all its threads, user and system, in µs (from /proc/PID/stat). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, in clock ticks of 10 ms (USER_HZ 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * The interleaved rate rounds, each server in its own child process: deliveries per second of
 * each round, and each server's CPU a delivery (µs) over all its rounds.
 */
async function rateRounds(options, stateDir) {
  const sdk = await built('packages/sdk/dist/host.js');
  const undici = await import('undici');
  const self = fileURLToPath(import.meta.url);
  const servers = {
    bare: await startChild([self, '--serve', 'bare'], { name: 'the bare server' }),
    flushed: await startChild([self, '--serve', 'flushed', join(stateDir, 'flushed')], {
      name: 'the flushed bare server',
    }),
    lean: await startChild([self, '--serve', 'lean', join(stateDir, 'lean')], { name: 'the lean server' }),
    receiver: await startCommand(join(stateDir, 'rate'), options.triggers, BODY_BYTES * 2),
    ...(options.bareWork > 0
      ? {
          worked: await startChild([self, '--serve', 'worked', String(options.bareWork)], {
            name: 'the worked bare server',
          }),
        }
      : {}),
  };
  const dispatcher = new undici.Agent({ connections: options.concurrency, keepAliveTimeout: 60_000 });
  const rates = Object.fromEntries(Object.keys(servers).map((name) => [name, []]));
  const cpu = Object.fromEntries(Object.keys(servers).map((name) => [name, 0]));
  try {
    for (const server of Object.values(servers))
      await sendRound(sdk, dispatcher, undici, server.info.urls, options.warmup, options.concurrency);
    for (let round = 0; round < options.rounds; round += 1) {
      // The order turns each round, so none always follows another.
      const names = Object.keys(servers);
      const order = names.map((_, index) => names[(index + round) % names.length]);
      for (const name of order) {
        const { pid } = servers[name].child;
        const before = cpuMicros(pid);
        rates[name].push(
          await sendRound(sdk, dispatcher, undici, servers[name].info.urls, options.deliveries, options.concurrency),
        );
        cpu[name] += cpuMicros(pid) - before;
      }
    }
  } finally {
    await dispatcher.close();
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
  const delivered = options.rounds * options.deliveries;
  return { rates, cpuMicros: Object.fromEntries(Object.entries(cpu).map(([name, used]) => [name, used / delivered])) };
}

/** The kernel's view of a process's memory, in MB: `VmRSS` or `VmHWM`. */
function memoryOf(pid, field) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Streams a 10 MB chunked body to `url` until the receiver answers or closes; resolves with the status or the failure. */
function streamLarge(url, chunk) {
  return new Promise((resolve) => {
    let written = 0;
    let settled = false;
    const done = (outcome) => {
      if (settled) return;
      settled = true;
      outgoing.destroy();
      resolve(outcome);
    };
    const outgoing = httpRequest(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json' },
    });
    outgoing.on('response', (response) => {
      response.resume();
      done(String(response.statusCode));
    });
    outgoing.on('error', (error) => done(error.code ?? 'error'));
    const write = () => {
      while (!settled && written < FLOOD_BYTES) {
        written += chunk.length;
        if (!outgoing.write(chunk)) return void outgoing.once('drain', write);
      }
      if (!settled) outgoing.end();
    };
    write();
  });
}

/**
 * `plugboard triggers serve` of the built CLI, `count` triggers at `maxBodyBytes`, state in `folder`:
 * the child, its triggers' URLs in `info.urls`. It prints a line per trigger, of which `startChild`
 * reads the first: the others are the same but for their publicId.
 */
async function startCommand(folder, count, maxBodyBytes) {
  const { TRIGGER_LIMITS } = await built('packages/triggers/dist/index.js');
  mkdirSync(folder, { recursive: true });
  const config = join(folder, 'triggers.json');
  writeFileSync(config, JSON.stringify({ triggers: benchTriggers(count, maxBodyBytes, TRIGGER_LIMITS) }));
  const args = [builtPath('packages/cli/dist/main.js'), 'triggers', 'serve', '--config', config, '--port', '0'];
  const server = await startChild([...args, '--state', join(folder, 'state')], {
    name: 'plugboard triggers serve',
    env: { ...process.env, BENCH_TRIGGER_SECRET: SECRET },
  });
  const base = server.info.url.slice(0, server.info.url.lastIndexOf('/') + 1);
  return { ...server, info: { urls: Array.from({ length: count }, (_, index) => `${base}pub_bench_${index}`) } };
}

/**
 * Idle RSS of a receiver at 64 KB (`command`: `plugboard triggers serve`; `unbounded`: the package's
 * receiver with Node's defaults), then its peak over each flood of 10 MB bodies.
 */
async function flood(options, stateDir, kind) {
  const self = fileURLToPath(import.meta.url);
  const folder = join(stateDir, `flood-${kind}`);
  const server =
    kind === 'command'
      ? await startCommand(folder, 1, FLOOD_LIMIT)
      : await startChild([self, '--serve', 'receiver', folder, '1', String(FLOOD_LIMIT)], { name: 'the receiver' });
  const pid = server.child.pid;
  const [url] = server.info.urls;
  const sdk = await built('packages/sdk/dist/host.js');
  const undici = await import('undici');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const floods = [];
  let idle;
  try {
    // Warm: the delivery path has run before idle is taken.
    const dispatcher = new undici.Agent({ connections: 4 });
    await sendRound(sdk, dispatcher, undici, [url], 200, 4);
    await dispatcher.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    idle = memoryOf(pid, 'VmRSS');
    for (let round = 0; round < options.floodRounds; round += 1) {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      let sampled = memoryOf(pid, 'VmRSS');
      const sampler = setInterval(() => void (sampled = Math.max(sampled, memoryOf(pid, 'VmRSS'))), 5);
      const outcomes = await Promise.all(Array.from({ length: options.floodSenders }, () => streamLarge(url, chunk)));
      clearInterval(sampler);
      const answered = {};
      for (const outcome of outcomes) answered[outcome] = (answered[outcome] ?? 0) + 1;
      floods.push({ peakMb: Math.max(memoryOf(pid, 'VmHWM'), sampled), sampledMb: sampled, answered });
    }
  } finally {
    await server.stop();
  }
  return { idleMb: idle, floods };
}

function readOptions() {
  const { values } = parseArgs({
    options: {
      deliveries: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '6' },
      concurrency: { type: 'string', default: '16' },
      warmup: { type: 'string', default: '500' },
      triggers: { type: 'string', default: '4' },
      'flood-senders': { type: 'string', default: '64' },
      'flood-rounds': { type: 'string', default: '10' },
      state: { type: 'string' },
      'skip-flood': { type: 'boolean', default: false },
      'bare-work': { type: 'string' },
    },
  });
  return {
    deliveries: positiveInteger('deliveries', values.deliveries),
    rounds: positiveInteger('rounds', values.rounds),
    concurrency: positiveInteger('concurrency', values.concurrency),
    warmup: positiveInteger('warmup', values.warmup),
    triggers: positiveInteger('triggers', values.triggers),
    floodSenders: positiveInteger('flood-senders', values['flood-senders']),
    floodRounds: positiveInteger('flood-rounds', values['flood-rounds']),
    state: values.state,
    skipFlood: values['skip-flood'],
    bareWork: values['bare-work'] === undefined ? 0 : positiveInteger('bare-work', values['bare-work']),
  };
}

async function main() {
  const options = readOptions();
  const stateDir = await mkdtemp(join(options.state ?? tmpdir(), 'plugboard-bench-deliveries-'));
  let measured;
  const memories = [];
  try {
    measured = await rateRounds(options, stateDir);
    if (!options.skipFlood)
      for (const [setting, kind] of [
        ['receiver `plugboard triggers serve`', 'command'],
        ["the package's receiver in a process of Node's defaults", 'unbounded'],
      ])
        memories.push({ setting, ...(await flood(options, stateDir, kind)) });
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
  const { rates, cpuMicros: cpu } = measured;
  const bare = median(rates.bare);
  const receiver = median(rates.receiver);
  const flushed = median(rates.flushed);
  const lean = median(rates.lean);
  const rateRatio = ratio(receiver, bare);
  const perRound = rates.receiver.map((value, index) => times(ratio(value, rates.bare[index]))).join(', ');
  const used = (name) => `${Math.round(cpu[name])} µs of CPU a delivery`;
  console.log(
    `bench: 1 KB signed deliveries, ${options.deliveries} a round, ${options.rounds} rounds, ${options.concurrency} senders: receiver ${thousands(receiver)}/s (${used('receiver')}), bare node:http + HMAC ${thousands(bare)}/s (${used('bare')}): ${times(rateRatio)} (rounds ${perRound}; target ${RATIO_TARGET}x: ${rateRatio >= RATIO_TARGET ? 'met' : 'not met'})`,
  );
  console.log(
    `bench: bare node:http + HMAC + one fdatasync before each answer (group commit, this disk): ${thousands(flushed)}/s (${used('flushed')}), ${times(ratio(flushed, bare))} the bare server; the receiver ${times(ratio(receiver, flushed))} of it`,
  );
  console.log(
    `bench: lean (SDK verifyDelivery, the body's SHA-256 and JSON, a receipt line appended, nothing flushed): ${thousands(lean)}/s (${used('lean')}), ${times(ratio(lean, bare))} the bare server`,
  );
  if (rates.worked)
    console.log(
      `bench: bare node:http + HMAC + ${options.bareWork} µs of busy work a delivery: ${thousands(median(rates.worked))}/s (${used('worked')}), ${times(ratio(median(rates.worked), bare))} the bare server`,
    );
  for (const memory of memories) {
    const peaks = memory.floods.map((entry) => entry.peakMb);
    const peak = Math.max(...peaks);
    const answered = {};
    for (const entry of memory.floods)
      for (const [outcome, count] of Object.entries(entry.answered))
        answered[outcome] = (answered[outcome] ?? 0) + count;
    console.log(
      `bench: ${memory.setting}: ${options.floodRounds} floods of ${options.floodSenders} x 10 MB chunked bodies at maxBodyBytes 64 KB: idle RSS ${round1(memory.idleMb)} MB, peak ${round1(peak)} MB (+${round1(peak - memory.idleMb)} MB; first flood +${round1(peaks[0] - memory.idleMb)} MB; each flood's peak ${peaks.map(round1).join(', ')} MB; answered ${JSON.stringify(answered)}; target within ${RSS_TARGET_MB} MB: ${peak - memory.idleMb <= RSS_TARGET_MB ? 'met' : 'not met'})`,
    );
  }
  console.log(
    JSON.stringify({
      bench: 'deliveries',
      ...options,
      receiverPerSecond: Math.round(receiver),
      barePerSecond: Math.round(bare),
      flushedBarePerSecond: Math.round(flushed),
      leanPerSecond: Math.round(lean),
      ...(rates.worked ? { workedBarePerSecond: Math.round(median(rates.worked)) } : {}),
      cpuMicrosPerDelivery: Object.fromEntries(Object.entries(cpu).map(([name, value]) => [name, Math.round(value)])),
      ratio: round2(rateRatio),
      perRound: Object.fromEntries(Object.entries(rates).map(([name, values]) => [name, values.map(Math.round)])),
      floods: memories.map((memory) => ({
        setting: memory.setting,
        idleRssMb: round1(memory.idleMb),
        floods: memory.floods.map((entry) => ({
          ...entry,
          peakMb: round1(entry.peakMb),
          sampledMb: round1(entry.sampledMb),
        })),
      })),
    }),
  );
}
