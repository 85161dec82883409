import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock } from '@plugboard/sdk/host';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { launchChromium } from '../../../catalogue/test/support/chromium.js';
import { type ApprovalStore, approvalPage, fileApprovalStore } from '../../src/index.js';
import { requestOf } from './contract.js';

/**
 * The approval page on a node:http server of the test's own (127.0.0.1, a free port), driven by
 * Chromium. The test's `identify` reads the signed-in person from a header Chromium sends.
 */
const clock = manualClock();
let browser: Browser;
let server: Server;
let base: string;
let store: ApprovalStore;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-approval-page-'));
  store = fileApprovalStore(join(dir, 'state'), { clock });
  const page = approvalPage({
    store,
    clock,
    identify: (req) => req.headers['x-test-person'] as string | undefined,
    signIn: (_req, res) => void res.writeHead(302, { location: '/sign-in' }).end(),
  });
  server = createServer((req, res) => void page(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/approvals`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function pageAs(person: string) {
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-test-person': person } });
  return { context, page: await context.newPage() };
}

test('another person opens the page, sees what will happen, clicks Approve: the store has it approved', async () => {
  const approval = await store.request(requestOf({ summary: 'import <b>1 file</b> into "Launch"' }));
  const { context, page } = await pageAs('bob@example.com');
  try {
    await page.goto(`${base}/${approval.id}`);
    expect(await page.textContent('body')).toContain('import <b>1 file</b> into "Launch"');
    for (const shown of [
      'descript',
      'media_imports.create',
      'production',
      approval.digest,
      'alice@example.com',
      approval.expiresAt,
    ])
      expect(await page.textContent('dl')).toContain(shown);
    const screenshot = join(dir, 'approval-page.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect((await stat(screenshot)).size).toBeGreaterThan(1000);
    // A host that cannot sign people out gets no Sign out button.
    expect(await page.$('button.sign-out')).toBeNull();
    await page.click('button.approve');
    expect(await page.textContent('#note')).toBe('Approved by bob@example.com.');
    expect(await page.textContent('#status')).toBe('approved');
    expect(await store.get(approval.id)).toMatchObject({ status: 'approved', decidedBy: 'bob@example.com' });
  } finally {
    await context.close();
  }
});

test('the requester, however spelt, is told someone else must decide, and cannot post a decision', async () => {
  const approval = await store.request(requestOf({ requestedBy: 'carol@example.com' }));
  const bob = await pageAs('bob@example.com');
  const carol = await pageAs(' Carol@Example.com ');
  try {
    await carol.page.goto(`${base}/${approval.id}`);
    expect(await carol.page.textContent('#note')).toContain('You asked for this call, so you cannot decide it');
    expect(await carol.page.locator('button').count()).toBe(0);
    // A form issued to bob, posted by carol: refused, and nothing decided.
    await bob.page.goto(`${base}/${approval.id}`);
    await bob.context.setExtraHTTPHeaders({ 'x-test-person': 'CAROL@example.com' });
    const answer = await Promise.all([bob.page.waitForResponse(() => true), bob.page.click('button.approve')]);
    expect(answer[0].status()).toBe(403);
    expect((await store.get(approval.id)).status).toBe('pending');
  } finally {
    await bob.context.close();
    await carol.context.close();
  }
});

test('nobody signed in goes to the sign-in; an expired approval shows no buttons; an unknown id is 404', async () => {
  const approval = await store.request(requestOf({ requestedBy: 'dan', ttlMs: 60_000 }));
  const anonymous = await fetch(`${base}/${approval.id}`, { redirect: 'manual' });
  expect(anonymous.status).toBe(302);
  expect(anonymous.headers.get('location')).toBe('/sign-in');
  await clock.advance(60_000);
  const { context, page } = await pageAs('bob@example.com');
  try {
    await page.goto(`${base}/${approval.id}`);
    expect(await page.textContent('#status')).toBe('expired');
    expect(await page.locator('button').count()).toBe(0);
    const unknown = await page.goto(`${base}/apr_AAAAAAAAAAAAAAAAAAAAAA`);
    expect(unknown?.status()).toBe(404);
  } finally {
    await context.close();
  }
});
