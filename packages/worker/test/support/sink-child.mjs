// A worker process reading the Descript simulator's projects into a sink, for the crash test and
// tools/bench/sink-crash.mjs: the built packages, as a host runs them.
//
//   node sink-child.mjs --postgres URL --base-url URL --token TOKEN [--limit 10] [--sink postgres|jsonl --out FILE]
//
// Prints { records, pages, ms } as one JSON line when the read is done. `postgres` is the
// exactly-once sink (runSourceIntoSink); `jsonl` appends each page to a file, then the executor
// commits the checkpoint (at-least-once: a page written before a crash is written again).
import { appendFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { descript } from '@plugboard/connector-descript';
import { createTransport } from '@plugboard/sdk';
import { runSource, prepareExecution, setUpExecutor } from '@plugboard/sdk/host';
import pg from 'pg';
import { postgresSink, postgresStores, runSourceIntoSink } from '../../dist/index.js';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string' },
    'base-url': { type: 'string' },
    token: { type: 'string' },
    limit: { type: 'string', default: '10' },
    sink: { type: 'string', default: 'postgres' },
    out: { type: 'string' },
  },
});
const pool = new pg.Pool({ connectionString: values.postgres, max: 2 });
const transport = createTransport();
const setup = setUpExecutor({
  connectors: [descript],
  resolveConnection: (id) => ({ id, baseUrl: values['base-url'] }),
  resolveCredential: () => values.token,
  stores: postgresStores(pool),
  transport,
  retry: { retries: 0 },
});
const request = {
  connectorKey: 'descript',
  action: 'projects.list',
  connectionId: 'descript-drive',
  input: { limit: Number(values.limit) },
};

async function intoJsonLines() {
  const ready = await prepareExecution(setup, request);
  const onPage = (page) => appendFile(values.out, page.records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  return runSource(setup, { ...request, onPage }, ready);
}

const started = performance.now();
const outcome =
  values.sink === 'jsonl' ? await intoJsonLines() : await runSourceIntoSink(setup, postgresSink(pool), request);
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ records: outcome.records, pages: outcome.pages, ms })}\n`);
await transport.close();
await pool.end();
