#!/usr/bin/env node
// P2, reading a large list through the SDK. The Descript simulator (a child process, one
// per size, `--size N` seeded projects) is read whole with the Descript connector's
// projects.list (runAction, pages counted and dropped, never all kept), beside a plain
// fetch paging loop making exactly the same requests (GET /projects?sort=updated_at&
// direction=asc&limit=PAGE&cursor=..., the same headers), parsing each page's JSON and
// counting its records. Each read runs in a fresh child process of its own, so its peak
// RSS (process.resourceUsage().maxRSS) is that contender's; the two are interleaved, the
// order alternating every round, and the figures are medians over the rounds.
// Targets: Plugboard at least 1.0x the loop's records/s (through the declared paginator and watermark), peak RSS at most 1.25x the loop's,
// and flat in N. Not a test. `--via` picks how the SDK's transport sends (`createTransport({ via })`,
// default undici, as a host's transport): Node's http module keeps a long read's memory lowest.
//
//   ./pbw build && node tools/bench/p2-read.mjs [--sizes 100000,300000,1000000] [--rounds 3] [--page 100] [--via undici|fetch|http]
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  built,
  integerList,
  median,
  positiveInteger,
  ratio,
  round2,
  runChild,
  startDescriptSimulator,
  thousands,
  times,
} from './lib.mjs';

const self = fileURLToPath(import.meta.url);

// One read, in its own process: `node p2-read.mjs --child plugboard|loop URL PAGE [MAX_PAGES]`, the token in
// PLUGBOARD_BENCH_TOKEN and the transport's `via` in PLUGBOARD_BENCH_VIA. Prints { records, pages, ms, maxRssKb }.
if (process.argv[2] === '--child') {
  const [contender, url, pageText, maxPagesText] = process.argv.slice(3);
  const token = process.env.PLUGBOARD_BENCH_TOKEN;
  const page = Number(pageText);
  const result =
    contender === 'plugboard'
      ? await readWithPlugboard(url, token, page)
      : await readWithLoop(url, token, page, Number(maxPagesText ?? Infinity));
  process.stdout.write(`${JSON.stringify({ ...result, maxRssKb: process.resourceUsage().maxRSS })}\n`);
  process.exit(0);
}

async function readWithPlugboard(url, token, page) {
  const sdk = await built('packages/sdk/dist/index.js');
  const { descript } = await built('connectors/descript/dist/index.js');
  const transport = sdk.createTransport({ via: process.env.PLUGBOARD_BENCH_VIA });
  let records = 0;
  let pages = 0;
  const started = performance.now();
  try {
    for await (const result of sdk.runAction(descript, 'projects.list', {
      input: { limit: page },
      connection: { baseUrl: url },
      credential: () => token,
      transport,
      log: () => undefined,
    })) {
      records += result.records.length;
      pages += 1;
    }
  } finally {
    await transport.close();
  }
  return { records, pages, ms: performance.now() - started };
}

async function readWithLoop(url, token, page, maxPages = Infinity) {
  const headers = { accept: 'application/json', authorization: `Bearer ${token}` };
  const base = `${url.replace(/\/+$/, '')}/projects`;
  let records = 0;
  let pages = 0;
  let cursor;
  const started = performance.now();
  do {
    const target = new URL(base);
    target.searchParams.append('sort', 'updated_at');
    target.searchParams.append('direction', 'asc');
    target.searchParams.append('limit', String(page));
    if (cursor !== undefined) target.searchParams.append('cursor', cursor);
    const response = await fetch(target, { headers });
    if (response.status !== 200) throw new Error(`GET ${target.pathname}: ${response.status} ${await response.text()}`);
    const body = await response.json();
    records += body.data.length;
    pages += 1;
    cursor = body.pagination?.next_cursor;
  } while (cursor !== undefined && pages < maxPages);
  return { records, pages, ms: performance.now() - started };
}

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,300000,1000000' },
    rounds: { type: 'string', default: '3' },
    page: { type: 'string', default: '100' },
    via: { type: 'string', default: 'undici' },
  },
});
const sizes = integerList('sizes', values.sizes);
const rounds = positiveInteger('rounds', values.rounds);
const page = positiveInteger('page', values.page);
const via = values.via;
if (!['undici', 'fetch', 'http'].includes(via))
  throw new Error(`bench: --via must be undici, fetch or http, not ${via}`);
const contenders = ['plugboard', 'loop'];

console.log(
  `bench: P2, projects.list of the Descript simulator read whole, N = ${sizes.map(thousands).join(', ')}, page ${page}, Plugboard via ${via}, ${rounds} rounds, each read in a fresh process, Node ${process.versions.node}`,
);

const results = [];
let meets = true;
for (const size of sizes) {
  const simulator = await startDescriptSimulator({ size });
  const env = { ...process.env, PLUGBOARD_BENCH_TOKEN: simulator.token, PLUGBOARD_BENCH_VIA: via };
  const figures = Object.fromEntries(contenders.map((name) => [name, { rate: [], rss: [], ms: [] }]));
  try {
    // Warms the simulator up (its first 200 pages), counted nowhere.
    await runChild([self, '--child', 'loop', simulator.url, String(page), '200'], { env, name: 'warm-up' });
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? contenders : [...contenders].reverse();
      const line = [];
      for (const name of order) {
        const result = await runChild([self, '--child', name, simulator.url, String(page)], {
          env,
          name: `${name} read of ${size}`,
        });
        if (result.records !== size) throw new Error(`bench: ${name} read ${result.records} records of ${size}`);
        const rate = result.records / (result.ms / 1000);
        figures[name].rate.push(rate);
        figures[name].rss.push(result.maxRssKb / 1024);
        figures[name].ms.push(result.ms);
        line.push(
          `${name} ${thousands(rate)} records/s, ${(result.ms / 1000).toFixed(1)} s, peak RSS ${(result.maxRssKb / 1024).toFixed(1)} MB`,
        );
      }
      console.log(`bench: N ${thousands(size)}, round ${round + 1}: ${line.join('; ')}`);
    }
  } finally {
    await simulator.stop();
  }
  const result = { size };
  for (const name of contenders) {
    result[name] = {
      recordsPerSecond: Math.round(median(figures[name].rate)),
      peakRssMb: Math.round(median(figures[name].rss) * 10) / 10,
      seconds: round2(median(figures[name].ms) / 1000),
    };
  }
  result.rateRatio = round2(ratio(result.plugboard.recordsPerSecond, result.loop.recordsPerSecond));
  result.rssRatio = round2(ratio(result.plugboard.peakRssMb, result.loop.peakRssMb));
  const ok = result.rateRatio >= 1 && result.rssRatio <= 1.25;
  meets &&= ok;
  results.push(result);
  console.log(
    `bench: N ${thousands(size)}: Plugboard ${thousands(result.plugboard.recordsPerSecond)} records/s, peak RSS ${result.plugboard.peakRssMb} MB; loop ${thousands(result.loop.recordsPerSecond)} records/s, peak RSS ${result.loop.peakRssMb} MB; ` +
      `records/s ${times(result.rateRatio)} (target >= 1.00x), RSS ${times(result.rssRatio)} (target <= 1.25x): ${ok ? 'yes' : 'NO'}`,
  );
}

// Flat in N: the peak RSS at the largest N over the one at the smallest.
const first = results[0];
const last = results[results.length - 1];
const growth = {
  plugboard: round2(ratio(last.plugboard.peakRssMb, first.plugboard.peakRssMb)),
  loop: round2(ratio(last.loop.peakRssMb, first.loop.peakRssMb)),
};
if (results.length > 1) {
  console.log(
    `bench: peak RSS at N ${thousands(last.size)} over N ${thousands(first.size)}: Plugboard ${times(growth.plugboard)}, loop ${times(growth.loop)} (flat: about 1.00x)`,
  );
}
console.log(
  JSON.stringify({
    bench: 'p2-read',
    sizes,
    rounds,
    page,
    via,
    node: process.versions.node,
    targets: { rateRatio: 1, rssRatio: 1.25 },
    meetsTargets: meets,
    rssGrowth: growth,
    results,
  }),
);
