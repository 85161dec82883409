import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInputError } from '@plugboard/sdk';
import { manualClock } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AuthorizationServer, startAuthorizationServer } from '../../sdk/test/support/oauth.js';
import { approvalPageClient } from './support.js';
import { type ApprovalSite, approvalSite, fileApprovalStore, pageSignIn } from '../src/index.js';
import { requestOf } from './approvals/contract.js';

/**
 * The approval page's sign-in (`approvalSite` over `pageSignIn`) against oidc-provider, with no
 * browser: the rig completes the login, the test carries the cookies. A session lasts its
 * hours on the clock the test drives; a sign-in cookie that is missing, forged or for another
 * state, a session signed with another secret, and a page path that would leave the site are
 * each refused or sent to sign in again.
 */

const clock = manualClock(Date.UTC(2026, 5, 1));
const COOKIE_SECRET = randomBytes(32).toString('base64url');
let auth: AuthorizationServer;
let server: Server;
let origin: string;
let site: ApprovalSite;
let dir: string;
let approvalId: string;

beforeAll(async () => {
  auth = await startAuthorizationServer({
    extraClients: [approvalPageClient('pages')],
  });
  dir = await mkdtemp(join(tmpdir(), 'plugboard-page-sign-in-'));
  const store = fileApprovalStore(dir, { clock });
  approvalId = (await store.request(requestOf())).id;
  server = createServer((req, res) => {
    void site.routes(req, res).then((answered) => answered || res.writeHead(404).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site = approvalSite({
    store,
    origin,
    clock,
    signIn: { issuer: auth.issuer, clientId: 'pages', cookieSecret: COOKIE_SECRET, sessionSeconds: 3600 },
  });
});
afterAll(async () => {
  server?.close();
  await auth?.stop();
  await rm(dir, { recursive: true, force: true });
});

const cookieOf = (answer: Response) =>
  answer.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';', 1)[0]!)
    .filter((cookie) => !cookie.endsWith('='))
    .join('; ');
const get = (path: string, cookie = '') => fetch(`${origin}${path}`, { redirect: 'manual', headers: { cookie } });

/** Opens `path` signed out, logs in at the authorization server, comes back: the session cookie and where it led. */
async function signIn(path: string): Promise<{ session: string; back: string | null }> {
  const start = await get(path);
  expect(start.status).toBe(303);
  const redirected = await auth.completeAuthorization(start.headers.get('location')!);
  const callback = await get(`${redirected.pathname}${redirected.search}`, cookieOf(start));
  expect(callback.status).toBe(303);
  return { session: cookieOf(callback), back: callback.headers.get('location') };
}

describe('the approval page sign-in', () => {
  test('signs a person in with the code flow and PKCE, and knows them by the session cookie until it expires', async () => {
    const page = `/approvals/${approvalId}`;
    const start = await get(page);
    const authorize = new URL(start.headers.get('location')!);
    expect(`${authorize.origin}`).toBe(auth.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${origin}/approvals/sign-in`);
    const { session, back } = await signIn(page);
    expect(back).toBe(page);
    const shown = await get(page, session);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('user-1');
    clock.advance(3601 * 1000);
    expect((await get(page, session)).status).toBe(303);
  });

  test('a callback without its sign-in cookie, or with a forged one, is refused', async () => {
    const start = await get(`/approvals/${approvalId}`);
    const redirected = await auth.completeAuthorization(start.headers.get('location')!);
    const callback = `${redirected.pathname}${redirected.search}`;
    expect((await get(callback)).status).toBe(400);
    expect((await get(callback, 'plugboard_sign_in=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..forged')).status).toBe(400);
    // Another sign-in's cookie: its state is not this answer's.
    expect((await get(callback, cookieOf(await get(`/approvals/${approvalId}`)))).status).toBe(400);
  });

  test('a session signed with another secret is no one; the sign-in comes back to the page asked for', async () => {
    const other = approvalSite({
      store: fileApprovalStore(dir, { clock }),
      origin,
      signIn: { issuer: auth.issuer, clientId: 'pages', cookieSecret: randomBytes(32).toString('base64url') },
    });
    expect(other.pageUrl('apr_1')).toBe(`${origin}/approvals/apr_1`);
    const { session } = await signIn(`/approvals/${approvalId}`);
    const forged = session.replace(/\.[\w-]+$/, `.${randomBytes(32).toString('base64url')}`);
    expect((await get(`/approvals/${approvalId}`, forged)).status).toBe(303);
    const { back } = await signIn(`/approvals/${approvalId}?from=mail`);
    expect(back).toBe(`/approvals/${approvalId}?from=mail`);
  });

  test('signing out ends the session in this browser, and the next sign-in asks for a fresh login', async () => {
    const page = `/approvals/${approvalId}`;
    expect(new URL((await get(page)).headers.get('location')!).searchParams.has('prompt')).toBe(false);
    const { session } = await signIn(page);
    const shown = await (await get(page, session)).text();
    const csrf = /action="\/approvals\/sign-out"><input type="hidden" name="csrf" value="([\w-]+)"/.exec(shown)?.[1];
    expect(csrf).toBeDefined();
    const post = (cookie: string, token: string) =>
      fetch(`${origin}/approvals/sign-out`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: token, page: approvalId }),
      });
    // A form not issued to this person ends nothing; nor does a post without the session (as a
    // cross-site one comes, its cookie held back by SameSite).
    const forged = await post(session, `${csrf!.slice(0, -2)}xx`);
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
    const sessionless = await post('', csrf!);
    expect(sessionless.status).toBe(200);
    expect(sessionless.headers.getSetCookie()).toEqual([]);
    const out = await post(session, csrf!);
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().map((cookie) => cookie.split(';', 1)[0])).toEqual([
      'plugboard_session=',
      'plugboard_signed_out=1',
    ]);
    expect(await out.text()).toContain(`href="${page}"`);
    const again = await get(page, cookieOf(out));
    expect(again.status).toBe(303);
    expect(new URL(again.headers.get('location')!).searchParams.get('prompt')).toBe('login');
    // Signed in again: the mark is cleared with the sign-in.
    const redirected = await auth.completeAuthorization(again.headers.get('location')!);
    const callback = await get(`${redirected.pathname}${redirected.search}`, `${cookieOf(again)}; ${cookieOf(out)}`);
    expect(callback.headers.getSetCookie().some((cookie) => cookie.startsWith('plugboard_signed_out=;'))).toBe(true);
  });

  test('options are checked before any request: a short cookie secret or a bad issuer names the field', () => {
    const base = { issuer: auth.issuer, clientId: 'pages', redirectUri: `${origin}/approvals/sign-in` };
    expect(() => pageSignIn({ ...base, cookieSecret: 'short' })).toThrow(InvalidInputError);
    expect(() => pageSignIn({ ...base, cookieSecret: COOKIE_SECRET, issuer: 'ftp://x' })).toThrow(/issuer/);
  });
});
