import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { items, startShopProvider } from '@plugboard/example-connector';
import { createTransport, type Transport } from '@plugboard/sdk';
import type { FaultServer } from '@plugboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type ApprovalStore, approvalDesk, fileApprovalStore, serveHttp } from '../src/index.js';
import { shopTools } from './support.js';

/**
 * URL-mode elicitation of the approval page, with the official client on protocol revision
 * 2026-07-28 declaring it takes URL elicitation: the call that needs an approval asks the client
 * to show the page's URL (`input_required`), the client's retry carries the approval back as
 * its request state, and once another person approved, it runs. A person who declines the URL
 * gets a refusal; a client without the capability gets the URL in the tool error's text.
 */

const TOKEN = 'mcp-elicit-token-2f7a';
const ORDER = { sku: 'SKU-1', quantity: 1 };
let provider: FaultServer;
let transport: Transport;
let store: ApprovalStore;
let dir: string;
let url: string;
let close: () => Promise<void>;
const clients: Client[] = [];

beforeAll(async () => {
  provider = await startShopProvider({ items: items(2), token: TOKEN });
  transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
  dir = await mkdtemp(join(tmpdir(), 'plugboard-mcp-elicit-'));
  store = fileApprovalStore(dir);
  const desk = approvalDesk(store, { pageUrl: (id) => `https://mcp.example.com/approvals/${id}` });
  const served = await serveHttp(
    shopTools(provider, transport, TOKEN, { environment: 'production', approvals: desk }),
    { authenticate: async () => ({ subject: 'alice' }) },
  );
  ({ url, close } = served);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});
afterAll(async () => {
  await close?.();
  await transport?.close();
  await provider?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The official client on 2026-07-28; with `answer`, it takes URL elicitation and answers each with it. */
async function client(answer?: 'accept' | 'decline', shown: string[] = []): Promise<Client> {
  const made = new Client(
    { name: 'plugboard-test', version: '1.0.0' },
    {
      capabilities: answer ? { elicitation: { url: {} } } : {},
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  if (answer)
    made.setRequestHandler('elicitation/create', (request) => {
      shown.push(String((request.params as { url?: string }).url));
      return { action: answer };
    });
  await made.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(made);
  return made;
}

describe('URL-mode elicitation of the approval page', () => {
  test('the client is shown the page; its retry names the approval; once another person approved, it runs once', async () => {
    const shown: string[] = [];
    const agent = await client('accept', shown);
    const before = provider.requests.length;
    const asked = await agent.callTool({ name: 'shop_orders_create', arguments: ORDER });
    expect(shown).toHaveLength(1);
    const id = shown[0]!.split('/').pop()!;
    expect(shown[0]).toBe(`https://mcp.example.com/approvals/${id}`);
    // Shown, not decided: the retry with the approval in its state finds it pending.
    expect(asked.structuredContent).toMatchObject({ code: 'approval_pending' });
    await store.decide(id, { decision: 'approved', by: 'bob' });
    const ran = await agent.callTool({ name: 'shop_orders_create', arguments: { ...ORDER, approvalId: id } });
    expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy();
    expect(provider.requests.length - before).toBe(1);
    expect((await store.get(id)).status).toBe('used');
  });

  test('a person who declines the URL: the call is refused, nothing sent', async () => {
    const agent = await client('decline');
    const before = provider.requests.length;
    const refused = await agent.callTool({ name: 'shop_orders_create', arguments: ORDER });
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'approval_declined' } });
    expect(provider.requests.length).toBe(before);
  });

  test('a client that does not take URL elicitation is told the URL in the tool error', async () => {
    const agent = await client();
    const asked = await agent.callTool({ name: 'shop_orders_create', arguments: ORDER });
    expect(asked.structuredContent).toMatchObject({ code: 'approval_required' });
    expect(JSON.stringify(asked.content)).toContain('open https://mcp.example.com/approvals/');
  });
});
