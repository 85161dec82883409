import { hkdfSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '@plugboard/sdk/host';
import { type PageSignInOptions, pageSignIn } from '../oauth/page-sign-in.js';
import { approvalPage } from './page.js';
import type { ApprovalStore } from './types.js';

/**
 * The approval page as the HTTP server serves it beside `/mcp`: `{origin}/approvals/{id}` for a
 * person signed in at the authorization server (`pageSignIn`, its redirect at
 * `{origin}/approvals/sign-in`), the forms' CSRF key derived from the cookie secret, so that any
 * process of a fleet holding the secret shows and decides any approval of a shared store.
 */

export const APPROVALS_PATH = '/approvals';
export const SIGN_IN_PATH = `${APPROVALS_PATH}/sign-in`;

export interface ApprovalSiteOptions {
  store: ApprovalStore;
  /** Where people reach this server, e.g. `https://mcp.example.com`: the pages and the sign-in's redirect are under it. */
  origin: string;
  /** The page's client at the authorization server, registered with the redirect URI `{origin}/approvals/sign-in`. */
  signIn: Omit<PageSignInOptions, 'redirectUri' | 'clock'>;
  clock?: Clock;
}

export interface ApprovalSite {
  /** Answers the pages and the sign-in's redirect; false for any other path. */
  routes(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
  /** The page of an approval, as the agent is told it. */
  pageUrl(id: string): string;
  /** What the page's client must be registered with. */
  redirectUri: string;
}

export function approvalSite(options: ApprovalSiteOptions): ApprovalSite {
  const origin = new URL(options.origin).origin;
  const redirectUri = `${origin}${SIGN_IN_PATH}`;
  const people = pageSignIn({ ...options.signIn, redirectUri, ...(options.clock ? { clock: options.clock } : {}) });
  const csrfKey = new Uint8Array(hkdfSync('sha256', options.signIn.cookieSecret, '', 'plugboard mcp csrf', 32));
  const page = approvalPage({
    store: options.store,
    identify: (request) => people.identify(request),
    signIn: (request, response) => people.signIn(request, response),
    signOut: (response) => people.signOut(response),
    basePath: APPROVALS_PATH,
    csrfKey,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    redirectUri,
    pageUrl: (id) => `${origin}${APPROVALS_PATH}/${encodeURIComponent(id)}`,
    async routes(request, response) {
      const path = (request.url ?? '').split('?', 1)[0]!;
      if (path === SIGN_IN_PATH) {
        await people.callback(request, response);
        return true;
      }
      if (!path.startsWith(`${APPROVALS_PATH}/`)) return false;
      await page(request, response);
      return true;
    },
  };
}
