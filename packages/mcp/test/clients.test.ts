import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { items, startShopProvider } from '@plugboard/example-connector';
import { createTransport, type Transport } from '@plugboard/sdk';
import type { FaultServer } from '@plugboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from '../src/index.js';
import { shopTools } from './support.js';

/**
 * Clients other than the SDK's own against the HTTP server: the official conformance suite
 * (every active server scenario passes but those its committed baseline names, each with why)
 * and the MCP Inspector in its CLI mode, listing the tools and calling a source for one page.
 */

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../node_modules/.bin');
const TOKEN = 'mcp-clients-token-1d4f';

let provider: FaultServer;
let transport: Transport;
let served: { url: string; close(): Promise<void> };
let dir: string;

beforeAll(async () => {
  provider = await startShopProvider({ items: items(5), token: TOKEN });
  transport = createTransport();
  served = await serveHttp(shopTools(provider, transport, TOKEN));
  dir = await mkdtemp(join(tmpdir(), 'plugboard-mcp-clients-'));
});
afterAll(async () => {
  await served?.close();
  await transport?.close();
  await provider?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Only 127.0.0.1: the clients' own lookups of anything else would fail rather than reach out. */
const offline = () => ({ ...process.env, HOME: dir, NO_PROXY: '*', npm_config_offline: 'true' });

describe('other clients', () => {
  it('passes every server scenario of the official conformance suite but those its baseline names', async () => {
    // The suite's own report says which scenario failed: it is the assertion's message.
    const outcome = await run(
      join(BIN, 'conformance'),
      [
        'server',
        '--url',
        served.url,
        '--expected-failures',
        resolve(import.meta.dirname, 'conformance-baseline.yml'),
        '-o',
        join(dir, 'results'),
      ],
      { env: offline(), cwd: dir },
    ).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code,
        stdout: `${error.stdout}\n${error.stderr}`,
      }),
    );
    const { stdout } = outcome;
    expect(outcome.code, stdout).toBe(0);
    expect(stdout).toMatch(/✓ server-initialize/);
    expect(stdout).toMatch(/✓ tools-list/);
  }, 120_000);

  it('lists and calls a tool with the Inspector in its CLI mode', async () => {
    const inspector = join(BIN, 'mcp-inspector');
    const options = { env: { ...offline(), MCP_CATALOG_PATH: join(dir, 'mcp.json') }, cwd: dir };
    const listed = await run(inspector, ['--cli', served.url, '--method', 'tools/list'], options);
    expect(listed.stdout).toContain('shop_items_list');
    const called = await run(
      inspector,
      ['--cli', served.url, '--method', 'tools/call', '--tool-name', 'shop_items_list', '--tool-arg', 'limit=2'],
      options,
    );
    expect(called.stdout).toContain('item_001');
    expect(called.stdout).toContain('item_002');
    expect(called.stdout).not.toContain('item_003');
  }, 120_000);
});
