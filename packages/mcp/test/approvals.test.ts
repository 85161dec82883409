import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { items, startShopProvider } from '@plugboard/example-connector';
import type { FaultServer } from '@plugboard/testing';
import { migrate } from '@plugboard/worker';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type PostgresServer, startPostgres } from '../../worker/test/support/postgres.js';
import { expectApprovedOnce } from './support.js';

/**
 * Approvals a person gives, never the agent, the whole path over stdio: `plugboard mcp` in production keeps a pending approval
 * of a billable call, `plugboard approvals approve` refuses the caller and takes another person,
 * and the agent's second call with the approval id runs once.
 */

const run = promisify(execFile);
const TOKEN = 'mcp-approvals-token-3b9d';
const CLI = join(import.meta.dirname, '..', '..', 'cli', 'dist', 'main.js');
const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'tools', 'example-connector');
let provider: FaultServer;
let postgres: PostgresServer | undefined;
const folders: string[] = [];
const closing: Array<() => Promise<void>> = [];
const folder = async () => {
  const made = await mkdtemp(join(tmpdir(), 'plugboard-mcp-approvals-'));
  folders.push(made);
  return made;
};

beforeAll(async () => {
  provider = await startShopProvider({ items: items(2), token: TOKEN });
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  await provider.close();
  await postgres?.stop();
  for (const made of folders) await rm(made, { recursive: true, force: true });
});

const env = { PLUGBOARD_CREDENTIAL: TOKEN, PATH: process.env.PATH ?? '', PLUGBOARD_ALLOW_NETWORK: '127.0.0.0/8' };

/** The official client over stdio, `plugboard mcp` in production as alice, where `place` says approvals are kept. */
async function agent(...place: string[]): Promise<Client> {
  const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
  const args = [CLI, 'mcp', '--connector', EXAMPLE, '--base-url', provider.url, '--environment', 'production'];
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...args, '--caller', 'alice', ...place],
      env,
      stderr: 'pipe',
    }),
  );
  closing.push(() => client.close());
  return client;
}

// Each step starts a plugboard process (or a browser's sign-in): slow on a loaded machine, never waiting on time.
describe('plugboard mcp and plugboard approvals', { timeout: 120_000 }, () => {
  test('a billable call in production waits for someone else, then runs once; reused or for other arguments it is refused', async () => {
    const state = await folder();
    const client = await agent('--state', state);
    const approvals = (...args: string[]) =>
      run(process.execPath, [CLI, 'approvals', ...args, '--state', state], { env });
    const order = { sku: 'SKU-1', quantity: 2 };
    const before = provider.requests.length;
    const asked = await client.callTool({ name: 'shop_orders_create', arguments: order });
    expect(asked.isError).toBe(true);
    const { approval } = asked.structuredContent as { approval: { id: string; digest: string; status: string } };
    expect(approval).toMatchObject({ status: 'pending', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(JSON.stringify(asked.content)).toContain(`plugboard approvals approve ${approval.id}`);

    // The caller deciding their own call: someone else must (exit 3, never 1).
    await expect(approvals('approve', approval.id, '--by', 'alice')).rejects.toMatchObject({ code: 3 });
    const early = await client.callTool({
      name: 'shop_orders_create',
      arguments: { ...order, approvalId: approval.id },
    });
    expect(early.structuredContent).toMatchObject({ code: 'approval_pending' });
    const approved = JSON.parse((await approvals('approve', approval.id, '--by', 'bob')).stdout) as { status: string };
    expect(approved.status).toBe('approved');

    const other = await client.callTool({
      name: 'shop_orders_create',
      arguments: { sku: 'SKU-2', quantity: 9, approvalId: approval.id },
    });
    expect(other.isError).toBe(true);
    expect(JSON.stringify(other.content)).toContain('digest');
    expect(provider.requests.length).toBe(before);

    await expectApprovedOnce(client, { order, approvalId: approval.id }, provider, before);
    const listed = (await approvals('list')).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: string });
    expect(listed.map((entry) => entry.status)).toEqual(['used']);
  });

  test("with --postgres the pending approval is kept in the fleet's PostgreSQL, where plugboard approvals --postgres decides it, across a restart of the server", async () => {
    postgres ??= await startPostgres();
    const url = await postgres.database();
    await migrate(url);
    const client = await agent('--postgres', url);
    const order = { sku: 'SKU-2', quantity: 1 };
    const asked = await client.callTool({ name: 'shop_orders_create', arguments: order });
    const { approval } = asked.structuredContent as { approval: { id: string } };
    // The server restarts under the serving process: its pool's idle connections end with an
    // error, which must not end the process; its next call connects again.
    await postgres.restart();
    const listed = await run(process.execPath, [CLI, 'approvals', 'list', '--postgres', url], { env });
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual([approval.id]);
    await run(process.execPath, [CLI, 'approvals', 'approve', approval.id, '--by', 'bob', '--postgres', url], { env });
    const ran = await client.callTool({ name: 'shop_orders_create', arguments: { ...order, approvalId: approval.id } });
    expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy();
  });
});
