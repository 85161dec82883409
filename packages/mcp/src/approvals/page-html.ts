import type { PendingApproval } from './types.js';

/** The approval page's HTML: server-rendered, no script, every value escaped. */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1c1c1c}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
.what{white-space:pre-wrap;background:#f4f4f4;padding:.6rem;border-radius:4px}code{font-size:.9em}
.note{padding:.6rem;border-radius:4px;background:#fff4d6}.done{background:#e3f6e5}
form{display:inline}button{font:inherit;padding:.5rem 1.4rem;margin:1rem 1rem 0 0;border-radius:4px;border:1px solid #555;cursor:pointer}
button.approve{background:#1f7a35;color:#fff;border-color:#1f7a35}button.sign-out{font-size:.85em;padding:.1rem .6rem;margin:0 0 0 .4rem}`;

/** A whole page around `body`. */
export function pageHtml(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export interface ApprovalView {
  approval: PendingApproval;
  person: string;
  /** Where the forms post to. */
  action: string;
  /** The CSRF token of the signed-in person, when they may decide. */
  csrf: string | undefined;
  /** What happened, or why the person may not decide, shown above the details. */
  note: { text: string; done?: boolean } | undefined;
  expired: boolean;
  /** Where the Sign out form posts, with its CSRF token: when the host can sign people out. */
  signOut: { action: string; csrf: string } | undefined;
}

function details(approval: PendingApproval, expired: boolean): string {
  const status = expired && approval.status === 'pending' ? 'expired' : approval.status;
  const rows: Array<[string, string]> = [
    ['Connector', escapeHtml(approval.connector)],
    ['Action', escapeHtml(approval.action)],
    ['Environment', escapeHtml(approval.environment)],
    ['What will happen', `<div class="what">${escapeHtml(approval.summary)}</div>`],
    ['Digest', `<code>${escapeHtml(approval.digest)}</code> (${escapeHtml(approval.shortDigest)})`],
    ['Requested by', escapeHtml(approval.requestedBy)],
    ['Requested at', escapeHtml(approval.requestedAt)],
    ['Expires at', escapeHtml(approval.expiresAt)],
    ['Status', `<strong id="status">${escapeHtml(status)}</strong>`],
  ];
  if (approval.decidedBy) rows.push(['Decided by', escapeHtml(approval.decidedBy)]);
  return `<dl>${rows.map(([name, value]) => `<dt>${name}</dt><dd>${value}</dd>`).join('')}</dl>`;
}

function forms(action: string, csrf: string): string {
  const form = (decision: string, label: string, kind: string) =>
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="decision" value="${decision}"><button type="submit" class="${kind}">${label}</button></form>`;
  return form('approved', 'Approve', 'approve') + form('rejected', 'Reject', 'reject');
}

/** Not this person? A button that signs them out, coming back to this approval's page to sign in again. */
function signOutForm(signOut: NonNullable<ApprovalView['signOut']>, id: string): string {
  return `<form method="post" action="${escapeHtml(signOut.action)}"><input type="hidden" name="csrf" value="${escapeHtml(signOut.csrf)}"><input type="hidden" name="page" value="${escapeHtml(id)}"><button type="submit" class="sign-out">Sign out</button></form>`;
}

/** The page after signing out: a link back to the approval, to sign in as someone else. */
export function signedOutHtml(back: string | undefined): string {
  const again = back ? `<p><a id="sign-in" href="${escapeHtml(back)}">Sign in</a> to open the approval again.</p>` : '';
  return pageHtml('Signed out', `<h1>Signed out</h1><p id="note">You are signed out in this browser.</p>${again}`);
}

/** The page of one approval, as `view.person` sees it. */
export function approvalHtml(view: ApprovalView): string {
  const { approval, person, note } = view;
  const heading = `<h1>Approve ${escapeHtml(approval.connector)} ${escapeHtml(approval.action)}?</h1>`;
  const leave = view.signOut ? ` ${signOutForm(view.signOut, approval.id)}` : '';
  const signedIn = `<p>Signed in as <strong>${escapeHtml(person)}</strong>.${leave} Approval <code>${escapeHtml(approval.id)}</code>.</p>`;
  const said = note ? `<p class="note${note.done ? ' done' : ''}" id="note">${escapeHtml(note.text)}</p>` : '';
  const buttons = view.csrf ? forms(view.action, view.csrf) : '';
  return pageHtml(
    `Approval ${approval.id}`,
    `${heading}${signedIn}${said}${details(approval, view.expired)}${buttons}`,
  );
}
