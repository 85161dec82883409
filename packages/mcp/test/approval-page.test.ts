import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { items, startShopProvider } from '@plugboard/example-connector';
import type { FaultServer } from '@plugboard/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { approvalPageClient, expectApprovedOnce } from './support.js';
import { launchChromium } from '../../catalogue/test/support/chromium.js';
import { ACCOUNT_HEADER, type AuthorizationServer, startAuthorizationServer } from '../../sdk/test/support/oauth.js';

/**
 * The approval page as `plugboard mcp --http` serves it beside `/mcp`, the whole path: an agent
 * (the authorization server's client `service-post`, by its token) calls a billable action in
 * production and is told a pending approval with its page's URL; the agent's own identity opening
 * that page in Chromium is told someone else must decide and signs out; another person signs in on
 * the same browser at the same authorization server (oidc-provider, through the page's own OAuth
 * client with PKCE, asked for a fresh login) and clicks Approve; the agent's second call with the approval id runs once, and a third is refused as used.
 */

const TOKEN = 'mcp-approval-page-token-91c4';
const CLI = join(import.meta.dirname, '..', '..', 'cli', 'dist', 'main.js');
const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'tools', 'example-connector');
const PAGE_CLIENT = 'approval-page';
const COOKIE_SECRET = randomBytes(32).toString('base64url');

let provider: FaultServer;
let auth: AuthorizationServer;
let browser: Browser;
let server: ChildProcess;
let state: string;
let mcpUrl = '';
let stderr = '';

beforeAll(async () => {
  provider = await startShopProvider({ items: items(2), token: TOKEN });
  auth = await startAuthorizationServer({
    resource: () => mcpUrl,
    scopes: ['mcp'],
    accessTokenTtl: 600,
    extraClients: [approvalPageClient(PAGE_CLIENT)],
  });
  state = await mkdtemp(join(tmpdir(), 'plugboard-mcp-approval-page-'));
  server = spawn(
    process.execPath,
    [
      CLI,
      'mcp',
      '--connector',
      EXAMPLE,
      '--base-url',
      provider.url,
      '--environment',
      'production',
      '--state',
      state,
      '--http',
      '0',
      '--authorization-server',
      auth.issuer,
      '--approval-client',
      PAGE_CLIENT,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        PLUGBOARD_CREDENTIAL: TOKEN,
        PLUGBOARD_ALLOW_NETWORK: '127.0.0.0/8',
        PLUGBOARD_COOKIE_SECRET: COOKIE_SECRET,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  server.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const [line] = (await once(createInterface({ input: server.stdout! }), 'line')) as [string];
  const started = JSON.parse(line) as { url: string; approvals: string; signInRedirect: string };
  mcpUrl = started.url;
  expect(started.signInRedirect).toBe(`${new URL(mcpUrl).origin}/approvals/sign-in`);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    const exited = once(server, 'exit');
    server.kill('SIGINT');
    await exited;
  }
  await auth?.stop();
  await provider?.close();
  if (state) await rm(state, { recursive: true, force: true });
});

/** The agent: the official client with a client-credentials token of the authorization server (subject `service-post`). */
async function agent(): Promise<Client> {
  const { clientId, clientSecret } = auth.clients.post;
  const answer = await fetch(auth.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'mcp',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  const { access_token: token } = (await answer.json()) as { access_token: string };
  const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A person in Chromium who signs in at the authorization server as `account` when the page asks. */
async function person(account: string) {
  const context = await browser.newContext({ extraHTTPHeaders: { [ACCOUNT_HEADER]: account } });
  return { context, page: await context.newPage() };
}

// Each step starts a plugboard process (or a browser's sign-in): slow on a loaded machine, never waiting on time.
describe('plugboard mcp --http with the approval page', { timeout: 120_000 }, () => {
  test('a billable call waits for a person other than the agent, who approves on the page; then it runs once', async () => {
    const client = await agent();
    try {
      const order = { sku: 'SKU-1', quantity: 2 };
      const before = provider.requests.length;
      const asked = await client.callTool({ name: 'shop_orders_create', arguments: order });
      expect(asked.isError).toBe(true);
      const { approval } = asked.structuredContent as { approval: { id: string; url: string; status: string } };
      expect(approval.url).toBe(`${new URL(mcpUrl).origin}/approvals/${approval.id}`);
      expect(JSON.stringify(asked.content)).toContain(`open ${approval.url}`);

      // One shared browser. The agent's own identity, signed in on the page: told someone else must
      // decide, no buttons. It signs out, and bob signs in on the same browser, where the
      // authorization server still knows service-post: the sign-in asks it for a fresh login.
      const shared = await person('service-post');
      try {
        await shared.page.goto(approval.url);
        expect(new URL(shared.page.url()).pathname).toBe(`/approvals/${approval.id}`);
        expect(await shared.page.textContent('#note')).toContain('someone else must approve or reject it');
        expect(await shared.page.$('button.approve')).toBeNull();
        await shared.page.click('button.sign-out');
        expect(await shared.page.textContent('#note')).toBe('You are signed out in this browser.');
        await shared.context.setExtraHTTPHeaders({ [ACCOUNT_HEADER]: 'bob' });
        // Through the authorization server's redirects, back to the page.
        await Promise.all([shared.page.waitForURL(approval.url), shared.page.click('#sign-in')]);
        expect(await shared.page.textContent('strong')).toBe('bob');
        expect(await shared.page.textContent('dl')).toContain('service-post');
        await shared.page.click('button.approve');
        expect(await shared.page.textContent('#note')).toBe('Approved by bob.');
      } finally {
        await shared.context.close();
      }
      expect(provider.requests.length).toBe(before);

      await expectApprovedOnce(client, { order, approvalId: approval.id }, provider, before);
    } finally {
      await client.close();
    }
    expect(stderr).not.toContain(TOKEN);
    expect(stderr).not.toContain(COOKIE_SECRET);
  });

  test('a page opened without a session goes to the sign-in; a forged session cookie is no one', async () => {
    const answer = await fetch(`${new URL(mcpUrl).origin}/approvals/apr_unknown`, {
      redirect: 'manual',
      headers: { cookie: 'plugboard_session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.forged' },
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toMatch(new RegExp(`^${auth.issuer}/`));
  });
});
