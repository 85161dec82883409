import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConnectorError } from '@plugboard/sdk';
import { type Clock, systemClock } from '@plugboard/sdk/host';
import { csrfToken, validCsrf } from './csrf.js';
import { ApprovalStateError } from './errors.js';
import { approvalHtml, escapeHtml, pageHtml, signedOutHtml } from './page-html.js';
import { personKey } from './records.js';
import type { ApprovalStore, PendingApproval } from './types.js';

/** What the host gives the approval page. */
export interface ApprovalPageOptions {
  store: ApprovalStore;
  /** The signed-in person of a request, or undefined when nobody is signed in. */
  identify(req: IncomingMessage): string | undefined | Promise<string | undefined>;
  /** Answers a request nobody is signed in for, e.g. with a redirect to the host's sign-in. */
  signIn(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
  /**
   * Ends the session in this browser by setting headers on the answer the page then writes (e.g.
   * `pageSignIn`'s `signOut`). With it the page has a Sign out button, and `POST {basePath}/sign-out`
   * signs out: someone else can then sign in on the same browser.
   */
  signOut?(res: ServerResponse): void | Promise<void>;
  /** Where the pages are: `{basePath}/{id}` (default `/approvals`). */
  basePath?: string;
  /** The key of the CSRF tokens (default 32 random bytes for this process: a restart asks to reload the page). */
  csrfKey?: Uint8Array;
  /** The time expiry is shown against (default the system clock; the store decides with its own). */
  clock?: Clock;
}

/** A form body is two short fields: anything longer is refused before it is read further. */
const MAX_BODY = 4096;

/** The sign-out's path under the base, and what its CSRF token is bound to (no approval id: the store makes those). */
const SIGN_OUT = 'sign-out';

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, HEADERS).end(html);
}

function message(res: ServerResponse, status: number, title: string, text: string): void {
  send(res, status, pageHtml(title, `<h1>${escapeHtml(title)}</h1><p id="note">${escapeHtml(text)}</p>`));
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A path segment decoded; undefined when it is not valid percent-encoding. */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Why a decision was refused, in words for the person on the page. */
function refusalText(error: ApprovalStateError): string {
  switch (error.reason) {
    case 'self_approval':
      return 'You asked for this call, so you cannot decide it: someone else must approve or reject it.';
    case 'approval_expired':
      return 'This approval has expired: the agent must ask again.';
    default:
      return 'This approval was decided already.';
  }
}

/**
 * The approval page as a node:http request handler: `GET {base}/{id}` shows the approval with
 * Approve and Reject buttons (forms, no script), `POST {base}/{id}` decides as the signed-in person
 * and shows the outcome. The requester sees why they cannot decide; nobody signed in goes to
 * `signIn`. Resolves once answered; a path outside the base gets 404.
 */
export function approvalPage(
  options: ApprovalPageOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { store, identify, signIn } = options;
  const base = (options.basePath ?? '/approvals').replace(/\/+$/, '');
  const key = options.csrfKey ?? randomBytes(32);
  const clock = options.clock ?? systemClock;

  const render = (
    res: ServerResponse,
    status: number,
    approval: PendingApproval,
    person: string,
    note?: { text: string; done?: boolean },
  ) => {
    const expired = clock.now() >= Date.parse(approval.expiresAt);
    const own = personKey(person) === personKey(approval.requestedBy);
    const open = approval.status === 'pending' && !expired;
    const ownNote =
      own && open ? { text: refusalText(new ApprovalStateError('self_approval', approval.id, '')) } : undefined;
    const csrf = open && !own ? csrfToken(key, approval.id, person) : undefined;
    const action = `${base}/${encodeURIComponent(approval.id)}`;
    const signOut = options.signOut
      ? { action: `${base}/${SIGN_OUT}`, csrf: csrfToken(key, SIGN_OUT, person) }
      : undefined;
    send(res, status, approvalHtml({ approval, person, action, csrf, note: note ?? ownNote, expired, signOut }));
  };

  /**
   * Signs the person out when the form is theirs, then offers the page they came from to sign in
   * again. Nobody signed in (a cross-site post carries no session cookie) leaves the cookies alone.
   */
  const leave = async (req: IncomingMessage, res: ServerResponse, person: string | undefined) => {
    const form = await formOf(req);
    if (!form) return message(res, 413, 'Too large', 'The form sent was larger than this page accepts.');
    if (person && !validCsrf(key, SIGN_OUT, person, form.get('csrf')))
      return message(res, 403, 'Not accepted', 'This form was not issued to you: open the approval page again.');
    if (person) await options.signOut!(res);
    const from = form.get('page');
    const back = from && !from.includes('/') ? `${base}/${encodeURIComponent(from)}` : undefined;
    send(res, 200, signedOutHtml(back));
  };

  const decide = async (req: IncomingMessage, res: ServerResponse, id: string, person: string) => {
    const form = await formOf(req);
    if (!form) return message(res, 413, 'Too large', 'The form sent was larger than this page accepts.');
    if (!validCsrf(key, id, person, form.get('csrf')))
      return message(
        res,
        403,
        'Not accepted',
        'This form was not issued to you for this approval: open the approval page again.',
      );
    const decision = form.get('decision');
    if (decision !== 'approved' && decision !== 'rejected')
      return message(res, 400, 'Not accepted', 'The form sent no decision.');
    try {
      const decided = await store.decide(id, { decision, by: person });
      return render(res, 200, decided, person, {
        text: `${decision === 'approved' ? 'Approved' : 'Rejected'} by ${person}.`,
        done: true,
      });
    } catch (error) {
      if (!(error instanceof ApprovalStateError)) throw error;
      return render(res, 409, await store.get(id), person, { text: refusalText(error) });
    }
  };

  return async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://page.invalid').pathname;
    const id = path.startsWith(`${base}/`) ? decoded(path.slice(base.length + 1)) : undefined;
    if (id === undefined || id.includes('/')) return message(res, 404, 'Not found', 'There is no page here.');
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('allow', 'GET, POST');
      return message(res, 405, 'Not allowed', 'This page takes GET and POST only.');
    }
    const person = (await identify(req))?.trim();
    if (id === SIGN_OUT && req.method === 'POST' && options.signOut) return leave(req, res, person);
    if (!person) return void (await signIn(req, res));
    try {
      if (req.method === 'POST') return await decide(req, res, id, person);
      return render(res, 200, await store.get(id), person);
    } catch (error) {
      if (error instanceof ConnectorError && error.code === 'approval_unknown')
        return message(res, 404, 'No such approval', 'No approval is kept under this address.');
      throw error;
    }
  };
}
