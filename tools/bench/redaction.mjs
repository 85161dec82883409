#!/usr/bin/env node
// Benchmark of what reads hostile text: the redactor (Redactor.redactString, containsSecret,
// containsSecretIn, rule 10's isSecretKey), the provider error classification (providerMessage and classifyByStatus
// of the SDK, and the Descript connector's descriptQuota and classifyDescriptFailure) on
// hostile inputs of 10 KB, 100 KB and 1 MB: one letter repeated, a base64 run (with and
// without the secret inside), a near-miss of the secret repeated (as is and in hex), look-alike
// letters, a 402 message of that length, and the same text spread over many small JSON
// strings. Each case runs once to warm up, then `--runs` times. Prints the median time of
// each and whether the slowest 1 MB case is under the target. Not a test. `--secrets` gives
// the redactor that many secrets (a recording that learned a token from each record of a page).
//
//   pnpm build && node tools/bench/redaction.mjs [--sizes 10000,100000,1000000] [--runs 7] [--secrets 2]
import { parseArgs } from 'node:util';
import { built, integerList, median, positiveInteger } from './lib.mjs';

const TARGET_MS = 100;
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    runs: { type: 'string', default: '7' },
    secrets: { type: 'string', default: '2' },
  },
});
const sizes = integerList('sizes', values.sizes);
const runs = positiveInteger('runs', values.runs);
const secretCount = Math.max(2, positiveInteger('secrets', values.secrets));

const sdk = await built('packages/sdk/dist/index.js');
const host = await built('packages/sdk/dist/host.js');
const descript = await built('connectors/descript/dist/index.js');

// A credential as a run holds it, and another secret the host passed on.
const SECRET = 'pbk_live_7f3a9c21d4e5b6a70c1d8e9f';
const redactor = new host.Redactor([
  SECRET,
  'other-secret-0042',
  ...Array.from({ length: secretCount - 2 }, (_, index) => `ghs_${String(index).padStart(6, '0')}${SECRET.slice(10)}`),
]);

/** The hostile texts of one size (characters). */
function inputs(size) {
  const base64 = Buffer.alloc(Math.ceil((size * 3) / 4), 0xfb)
    .toString('base64')
    .slice(0, size);
  const core = Buffer.from(`x${SECRET}`).toString('base64');
  const half = Math.max(0, Math.floor((size - core.length) / 2));
  const repeatTo = (unit) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return {
    letters: 'A'.repeat(size),
    base64,
    'base64 with the secret': `${base64.slice(0, half)}${core}${base64.slice(0, half)}`,
    'near misses': repeatTo(SECRET.slice(0, -1)),
    'hex near misses': repeatTo(Buffer.from(SECRET).toString('hex').slice(0, -2)),
    homoglyphs: repeatTo('p\u0430ss\uff57\u200bord_'),
    '402 message': `Insufficient ${repeatTo('media ').slice(0, Math.max(0, size - 90))} minutes to start the job (300 minutes required, 50 available)`,
  };
}

/** The text as a record of many small strings and keys: what a page of records looks like to a walk. */
function asRecord(text) {
  const record = {};
  for (let at = 0, index = 0; at < text.length; at += 64, index += 1)
    record[`field_${index}`] = [text.slice(at, at + 32), { note: text.slice(at + 32, at + 64) }];
  return record;
}

function failure(body, message) {
  return {
    status: 402,
    headers: new Headers(),
    body,
    message,
    requestId: 'req_1',
    retryAfterMs: undefined,
    operation: 'POST /jobs/import/project_media',
  };
}

const operations = {
  'Redactor.redactString': (text) => redactor.redactString(text),
  containsSecret: (text) => redactor.containsSecret(text),
  'containsSecretIn (one string)': (text) => redactor.containsSecretIn({ data: [text] }),
  'containsSecretIn (a record of small strings)': (text, record) => redactor.containsSecretIn(record),
  'isSecretKey (the text as a key)': (text) => host.isSecretKey(text),
  "the client's failure path (redact, message, classify)": (text) => {
    const body = redactor.redact({ error: 'payment_required', message: text, detail: { text } });
    return sdk.classifyByStatus(failure(body, redactor.redactString(host.providerMessage(402, body))));
  },
  'providerMessage + classifyByStatus (402)': (text) => {
    const body = { error: 'payment_required', message: text };
    return sdk.classifyByStatus(failure(body, host.providerMessage(402, body)));
  },
  'providerMessage + classifyByStatus (bare text)': (text) =>
    sdk.classifyByStatus(failure(text, host.providerMessage(402, text))),
  descriptQuota: (text) => descript.descriptQuota(text),
  'classifyDescriptFailure (402)': (text) => {
    const body = { message: text };
    return descript.classifyDescriptFailure(failure(body, host.providerMessage(402, body)));
  },
};

const ms = (value) => (value < 1 ? `${value.toFixed(3)} ms` : `${value.toFixed(1)} ms`);
const results = [];
for (const size of sizes) {
  const texts = inputs(size);
  const records = Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, asRecord(text)]));
  for (const [operation, run] of Object.entries(operations)) {
    let worst = { input: '', medianMs: -1 };
    for (const [input, text] of Object.entries(texts)) {
      const times = [];
      run(text, records[input]); // warm-up, not counted
      for (let index = 0; index < runs; index += 1) {
        const started = performance.now();
        run(text, records[input]);
        times.push(performance.now() - started);
      }
      const medianMs = median(times);
      if (medianMs > worst.medianMs) worst = { input, medianMs };
    }
    results.push({ size, operation, worstInput: worst.input, medianMs: worst.medianMs });
    console.log(
      `bench: ${String(size).padStart(8)} chars  ${operation.padEnd(48)} ${ms(worst.medianMs).padStart(10)}  (slowest input: ${worst.input})`,
    );
  }
}

const largest = Math.max(...sizes);
const slowest = results.filter((result) => result.size === largest).reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
console.log(
  `bench: slowest at ${largest} characters: ${slowest.operation} on ${slowest.worstInput}, ${ms(slowest.medianMs)}; under ${TARGET_MS} ms: ${slowest.medianMs < TARGET_MS ? 'yes' : 'NO'}`,
);
console.log(
  JSON.stringify({
    bench: 'redaction',
    targetMs: TARGET_MS,
    runs,
    secrets: secretCount,
    underTarget: slowest.medianMs < TARGET_MS,
    results: results.map((result) => ({ ...result, medianMs: Math.round(result.medianMs * 1000) / 1000 })),
  }),
);
