#!/usr/bin/env node
// Benchmark of `plugboard catalogue --out DIR`: generates the whole catalogue
// (entries, schemas, .d.ts, OpenAPI, site) for every connector of the pack
// that is built (connectors/*/dist/index.js), plus synthetic connectors the
// size of the media-editing one (14 actions, 12 data types) for a meaningful
// load, into a fresh temporary folder per run. Prints the cold first run, the
// median and the max, and whether the max is under 2000 ms. Not a test.
//
//   pnpm build && node tools/bench/catalogue.mjs [--runs 7] [--synthetic 10]
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, synthetic: { type: 'string', default: '10' } },
});
const runs = Math.max(1, Number(values.runs));
const syntheticCount = Math.max(0, Number(values.synthetic));
const LIMIT_MS = 2000;

function built(relative) {
  const path = join(root, relative);
  if (!existsSync(path)) {
    console.error(`bench: ${relative} is missing; run 'pnpm build' first`);
    process.exit(1);
  }
  return import(pathToFileURL(path).href);
}

const { generateCatalogue } = await built('packages/catalogue/dist/index.js');
const sdk = await built('packages/sdk/dist/index.js');
// The SDK's own zod, so the synthetic schemas are of the same zod the SDK checks against.
const { z } = await built('packages/sdk/node_modules/zod/index.js');

function isConnector(value) {
  return (
    value &&
    typeof value === 'object' &&
    typeof value.key === 'string' &&
    Array.isArray(value.actions) &&
    typeof value.action === 'function'
  );
}

const pack = [];
for (const name of readdirSync(join(root, 'connectors')).sort()) {
  const dist = join('connectors', name, 'dist/index.js');
  if (!existsSync(join(root, dist))) {
    console.log(`bench: connectors/${name} is not built; left out`);
    continue;
  }
  const module = await import(pathToFileURL(join(root, dist)).href);
  const connector = [module.default, ...Object.values(module)].find(isConnector);
  if (connector) pack.push(connector);
  else console.log(`bench: connectors/${name} exports no connector; left out`);
}

function syntheticConnector(index) {
  const key = `synthetic${String(index).padStart(2, '0')}`;
  const Money = z.object({ amount: z.string(), currency: z.string().length(3) }).meta({ id: `${key}Money` });
  const types = Array.from({ length: 12 }, (_, t) =>
    z
      .object({
        id: z.string().describe('Identifier'),
        name: z.string(),
        status: z.enum(['queued', 'running', 'done', 'failed']),
        created_at: z.iso.datetime(),
        updated_at: z.iso.datetime(),
        cost: Money.optional(),
        tags: z.array(z.string()).max(20),
        owner: z.object({ id: z.string(), name: z.string().nullable() }),
        parts: z.array(z.object({ path: z.string(), duration_seconds: z.number().nonnegative() })),
        note: z.string().nullable(),
      })
      .meta({ id: `${key}Type${t}`, description: `Data type ${t} of ${key}.` }),
  );
  const actions = Array.from({ length: 14 }, (_, a) => {
    const entity = types[a % types.length];
    const input = z.object({
      id: z.string().optional(),
      limit: z.number().int().min(1).max(100).default(50),
      query: z.string().optional(),
    });
    return a < 12
      ? sdk.defineAction({
          key: `things${a}.list`,
          label: `List things ${a}`,
          direction: 'source',
          entity,
          input,
          incremental: { cursorField: 'updated_at' },
          async *read() {},
        })
      : sdk.defineAction({
          key: `things${a}.create`,
          label: `Create thing ${a}`,
          direction: 'destination',
          entity,
          input,
          billable: true,
          retry: 'never',
          approval: 'production',
          async write() {
            return {};
          },
        });
  });
  return sdk.defineConnector({
    key,
    name: `Synthetic ${index}`,
    version: '1.0.0',
    vendor: 'Bench',
    category: 'media',
    status: 'beta',
    summary: 'A synthetic connector the size of the media-editing one.',
    auth: sdk.bearerToken(),
    baseUrl: 'https://bench.invalid/v1',
    rateLimits: { default: { limit: 10, per: 'second' } },
    limitations: ['Synthetic.'],
    actions,
  });
}

const connectors = [...pack, ...Array.from({ length: syntheticCount }, (_, index) => syntheticConnector(index + 1))];
const operations = connectors.reduce((sum, connector) => sum + connector.actions.length, 0);
console.log(
  `bench: catalogue of ${connectors.length} connectors (${pack.map((c) => c.key).join(', ') || 'none built'}${pack.length ? ' + ' : ''}${syntheticCount} synthetic), ${operations} operations, ${runs} runs, Node ${process.versions.node}`,
);

const times = [];
let files = 0;
const base = await mkdtemp(join(tmpdir(), 'plugboard-bench-catalogue-'));
try {
  for (let run = 0; run < runs; run += 1) {
    const outDir = join(base, `run${run}`);
    const start = performance.now();
    const result = await generateCatalogue({ connectors, outDir, generatedAt: '2026-10-01T00:00:00Z' });
    times.push(performance.now() - start);
    files = result.written.length;
  }
} finally {
  await rm(base, { recursive: true, force: true });
}

const sorted = [...times].sort((a, b) => a - b);
const median =
  sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
const max = sorted[sorted.length - 1];
const ms = (value) => `${value.toFixed(0)} ms`;
console.log(`bench: ${files} files per run; runs: ${times.map(ms).join(', ')}`);
console.log(
  `bench: first (cold) ${ms(times[0])}, median ${ms(median)}, max ${ms(max)}; under ${LIMIT_MS} ms: ${max < LIMIT_MS ? 'yes' : 'NO'}`,
);
console.log(
  JSON.stringify({
    bench: 'catalogue',
    connectors: connectors.length,
    operations,
    files,
    runs,
    firstMs: Math.round(times[0]),
    medianMs: Math.round(median),
    maxMs: Math.round(max),
    underLimit: max < LIMIT_MS,
  }),
);
