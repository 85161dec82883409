import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryHeaders, verifyDelivery } from '../src/deliveries/platform.js';
import type { DeliveryVerdict } from '../src/deliveries/verdict.js';

/**
 * A signed delivery over real HTTP: a node:http server on 127.0.0.1 reads the raw body and
 * verifies it with `verifyDelivery`, its `now` a fixed instant the test sets (never the
 * machine's clock). A sender signs with `deliveryHeaders`, and with the shell lines of
 * docs/triggers.md exactly as written (openssl and curl, their `date` answering that instant).
 */

const run = promisify(execFile);
const SECRET = 'plat_whsec_aHR0cC1kZWxpdmVyeS1zZWNyZXQ';
const T = 1_767_225_600;
const GUIDE = join(import.meta.dirname, '..', '..', '..', 'docs', 'triggers.md');

let server: Server;
let url: string;
let tmp: string;
const verdicts: DeliveryVerdict[] = [];

async function rawBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'plugboard-delivery-'));
  server = createServer(async (request, response) => {
    const body = await rawBody(request);
    const verdict = verifyDelivery({
      headers: request.headers,
      body,
      secret: SECRET,
      timestampToleranceSeconds: 300,
      now: T * 1000 + 2_000,
    });
    verdicts.push(verdict);
    response.writeHead(verdict.ok ? 202 : 401, { 'content-type': 'application/json' });
    response.end(JSON.stringify(verdict.ok ? { accepted: true } : { accepted: false, code: verdict.reasonCode }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/connect/triggers/trg_pub_1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(tmp, { recursive: true, force: true });
});

describe('a delivery posted to a node:http server', () => {
  it('is accepted with the raw body it was signed over, and refused once a byte changes', async () => {
    const body = Buffer.from('{"records":[{"id":"r1","city":"Zürich"}]}\n', 'utf8');
    const headers = deliveryHeaders({ secret: SECRET, timestamp: T, eventId: 'evt_http_1', body });
    const sent = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    expect(sent.status).toBe(202);
    expect(await sent.json()).toEqual({ accepted: true });
    expect(verdicts.at(-1)).toEqual({ ok: true, eventId: 'evt_http_1', timestamp: T });

    const changed = Buffer.from(body);
    changed[changed.length - 1] = 0x20;
    const forged = await fetch(url, { method: 'POST', headers, body: changed });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ accepted: false, code: 'signature_mismatch' });
  });
});

describe('the shell lines of docs/triggers.md, "Signing a delivery"', () => {
  it('sign a delivery that verifyDelivery accepts', async () => {
    const guide = await readFile(GUIDE, 'utf8');
    const section = guide.split(/^## /m).find((part) => part.startsWith('Signing a delivery\n'));
    const block = section && /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1];
    if (!block) throw new Error('docs/triggers.md has no sh block under "## Signing a delivery"');
    // The sender's clock: `date +%s` answers the instant the server's `now` is near.
    await writeFile(join(tmp, 'date'), `#!/bin/sh\necho ${T}\n`);
    await chmod(join(tmp, 'date'), 0o755);
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/proxy/i.test(name)));
    const before = verdicts.length;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', block], {
      env: { ...env, PATH: `${tmp}:${process.env['PATH']}`, URL: url, SECRET, NO_PROXY: '*' },
    });
    expect(JSON.parse(stdout)).toEqual({ accepted: true });
    expect(verdicts.slice(before)).toEqual([{ ok: true, eventId: expect.stringMatching(/^evt_/), timestamp: T }]);
  });
});
