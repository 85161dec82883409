#!/usr/bin/env node
// The memory an embedded receiver keeps for each accepted event it remembers (its event log's
// index: the event id's digest, where its claim line is, when it was received). Not a test.
//
// A state folder's `events.jsonl` is written with `--events` claim lines in the log's own format,
// then a receiver of the built package listens on it (its start reads the log into the index) in a
// child process with `--expose-gc`, which prints its heap once collected; the same is done for a
// log of one event. The figure is the difference over the events: bytes of heap an event.
//
//   ./pbw build && node tools/bench/event-index.mjs [--events 200000]
import { execFileSync } from 'node:child_process';
import { hash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { built, positiveInteger, thousands } from './lib.mjs';

const SECRET = 'whsec_bench_event_index_0c4e8a2f6b1d9e3a';

if (process.argv[2] === '--listen') await listen(process.argv[3]);
else await main();

/** Writes `count` claim lines of one trigger, received a second ago, as the receiver writes them. */
async function writeLog(stateDir, count) {
  const out = createWriteStream(join(stateDir, 'events.jsonl'));
  const receivedAt = new Date(Date.now() - 1000).toISOString();
  for (let index = 0; index < count; index++) {
    const eventId = `evt_${randomUUID()}`;
    const claim = {
      triggerId: 'trg_bench',
      eventId,
      deliveryId: `dlv_${randomUUID()}`,
      executionId: null,
      receivedAt,
      records: [{ id: `r${index}` }],
    };
    const line = `${JSON.stringify({ key: hash('sha256', eventId, 'hex').slice(0, 40), pending: false, claim })}\n`;
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
}

/** The child: a receiver listening on the folder, its heap printed once collected. */
async function listen(stateDir) {
  const { createReceiver, TRIGGER_LIMITS } = await built('packages/triggers/dist/index.js');
  const trigger = {
    triggerId: 'trg_bench',
    url: '/api/connect/triggers/pub_bench',
    environment: 'sandbox',
    status: 'active',
    maxBodyBytes: 2048,
    maxDeliveriesPerMinute: TRIGGER_LIMITS.maxDeliveriesPerMinute,
    timestampToleranceSeconds: 300,
    inputRetentionDays: 7,
    previousSecretValidUntil: null,
    secretEnv: 'BENCH_TRIGGER_SECRET',
  };
  const receiver = createReceiver({ config: { triggers: [trigger] }, stateDir, env: { BENCH_TRIGGER_SECRET: SECRET } });
  await receiver.listen(0);
  globalThis.gc();
  process.stdout.write(`${process.memoryUsage().heapUsed}\n`);
  await receiver.close();
}

async function heapWith(count) {
  const stateDir = await mkdtemp(join(tmpdir(), 'plugboard-bench-index-'));
  try {
    await writeLog(stateDir, count);
    const script = fileURLToPath(import.meta.url);
    return Number(execFileSync(process.execPath, ['--expose-gc', script, '--listen', stateDir], { encoding: 'utf8' }));
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '200000' } } });
  const events = positiveInteger('events', values.events);
  const base = await heapWith(1);
  const full = await heapWith(events);
  const perEvent = Math.round((full - base) / (events - 1));
  const megabytes = ((full - base) / 1024 / 1024).toFixed(1);
  console.log(
    `bench: an embedded receiver's index of ${thousands(events)} accepted events: ${megabytes} MB of heap, ${perEvent} bytes an event`,
  );
  console.log(
    JSON.stringify({ bench: 'event-index', events, heapBytes: { one: base, all: full }, bytesPerEvent: perEvent }),
  );
}
