// A host process for the crash test: runs a source with the executor and the file store,
// appends each acknowledged page's records to a file (flushed) before acknowledging it,
// and reports each page to the parent. With --hang-at N it never acknowledges page N
// (0-based): the parent kills it there with SIGKILL.
//
//   node crash-host.mjs --store DIR --out FILE --url URL [--hang-at N]
import { appendFileSync, closeSync, fsyncSync, openSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { shop } from '@plugboard/example-connector';
import { createExecutor } from '@plugboard/sdk/host';

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    out: { type: 'string' },
    url: { type: 'string' },
    'hang-at': { type: 'string' },
    runtime: { type: 'string' },
  },
});
const { fileStore } = await import(values.runtime);
const hangAt = values['hang-at'] === undefined ? -1 : Number(values['hang-at']);

const executor = createExecutor({
  connectors: [shop],
  resolveConnection: (id) => ({ id, baseUrl: values.url }),
  resolveCredential: () => 'crash-test-token',
  stores: fileStore(values.store),
});

function deliver(records) {
  const fd = openSync(values.out, 'a');
  try {
    appendFileSync(fd, records.map((record) => `${record.id}\n`).join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const outcome = await executor.execute({
  connectorKey: 'shop',
  action: 'items.list',
  connectionId: 'conn_crash',
  input: { limit: 5 },
  onPage: async (page, { index }) => {
    // The host processes the page (its records reach the output) ...
    deliver(page.records);
    process.send?.({ type: 'page', index, ids: page.records.map((record) => record.id) });
    // ... and dies before acknowledging it.
    if (index === hangAt) await new Promise(() => setInterval(() => undefined, 1_000));
  },
});
process.send?.({ type: 'done', pages: outcome.pages, records: outcome.records });
process.disconnect?.();
