import {
  AuthenticationError,
  classifyByStatus,
  ConflictError,
  type ConnectorError,
  NotFoundError,
  PermissionError,
  type ProviderFailure,
  type QuotaDetails,
  QuotaExhaustedError,
} from '@plugboard/sdk';

/**
 * The SDK's status mapping already gives the right error family (401, 402 with the quota
 * named, 403, 404, 409 with its state, 429 with Retry-After). The provider's body says more
 * in a few places, read here. Every message ends with the provider's request id when it gave
 * one, so a user can quote it to the provider's support.
 */

/** 403 `Agent usage has been disabled by your admin`: only a drive admin can turn it back on. */
export class AgentDisabledError extends PermissionError {
  override readonly code: string = 'agent_disabled';
}

function withRequest(text: string, requestId: string | undefined): string {
  return requestId && !text.includes(requestId) ? `${text} (request ${requestId})` : text;
}

function bodyField(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' && value ? value : undefined;
}

/** The slug of GET /published_projects/{slug}, from the operation text. */
function slugOf(operation: string): string | undefined {
  const match = /\/published_projects\/([^/?\s]+)/.exec(operation);
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

/** Provider text read for a quota: longer messages are cut here, so reading one costs at most this. */
const MAX_QUOTA_TEXT = 4096;

/** `1,200` or `12.5`: digits, commas and dots only. */
function amount(text: string): number | undefined {
  if (text === '' || text.length > 32) return undefined;
  for (const char of text) if (!((char >= '0' && char <= '9') || char === ',' || char === '.')) return undefined;
  const value = Number(text.replaceAll(',', ''));
  return Number.isFinite(value) ? value : undefined;
}

/** A quota's name is a few words of letters and digits: a longer run, or other text, is not one. */
const MAX_QUOTA_NAME = 64;
const QUOTA_NAME = /^[a-z0-9][a-z0-9 -]*$/;

/**
 * The quota a 402 names, in the provider's words: `Insufficient media minutes to start the
 * job (300 minutes required, 50 available)` gives `media_minutes`, `minutes`, 300 and 50;
 * `Insufficient AI credits ...` gives `ai_credits`; a message without amounts (or with amounts
 * it cannot read) gives the quota's name alone. A plain scan of at most 4 KB of text; anything
 * else gives no details.
 */
export function descriptQuota(message: string): QuotaDetails {
  const text = message.slice(0, MAX_QUOTA_TEXT).toLowerCase().replace(/\s+/g, ' ');
  const start = text.indexOf('insufficient ');
  if (start < 0) return {};
  const nameStart = start + 'insufficient '.length;
  const nameEnd = text.indexOf(' to ', nameStart);
  if (nameEnd < 0 || nameEnd - nameStart > MAX_QUOTA_NAME) return {};
  const name = text.slice(nameStart, nameEnd);
  if (!QUOTA_NAME.test(name)) return {};
  const quota = name
    .split(/[^a-z0-9]/)
    .filter(Boolean)
    .join('_');
  return { quota, ...amounts(text, nameEnd) };
}

/** `(300 minutes required, 50 available)` after the quota's name: unit and amounts, or nothing. */
function amounts(text: string, from: number): Omit<QuotaDetails, 'quota'> {
  const open = text.indexOf('(', from);
  const close = open < 0 ? -1 : text.indexOf(')', open);
  if (close < 0) return {};
  const inner = text.slice(open + 1, close).trim();
  const cut = inner.indexOf(' required');
  const [needed = '', ...unit] = inner.slice(0, Math.max(cut, 0)).split(' ');
  const rest = inner.slice(cut + ' required'.length);
  if (cut < 0 || unit.length === 0 || !rest.startsWith(',') || !rest.endsWith(' available')) return {};
  const required = amount(needed);
  const available = amount(rest.slice(1, -' available'.length).trim());
  if (required === undefined || available === undefined) return {};
  return { unit: unit.join(' '), required, available };
}

/** Classifies a failed answer of the provider; wired into the connector as `classifyError`. */
export function classifyDescriptFailure(failure: ProviderFailure): ConnectorError {
  const options = { status: failure.status, requestId: failure.requestId };
  const said = `${failure.operation}: ${failure.message}`;
  const text = (hint?: string) => withRequest(hint ? `${said} [${hint}]` : said, failure.requestId);

  if (failure.status === 402) {
    return new QuotaExhaustedError(text(), descriptQuota(failure.message), options);
  }
  if (failure.status === 401) {
    return new AuthenticationError(text("check the connection's API token: Descript, Settings, API tokens"), options);
  }
  if (failure.status === 403 && /agent usage has been disabled/i.test(failure.message)) {
    return new AgentDisabledError(
      text('an admin of the drive must allow agent usage again; retrying will not help'),
      options,
    );
  }
  if (failure.status === 403 && /visual search/i.test(failure.message)) {
    return new PermissionError(
      text('match=visual needs a drive on the Enterprise plan; search with match name or content'),
      options,
    );
  }
  if (failure.status === 409) {
    const state = bodyField(failure.body, 'state');
    const slug = slugOf(failure.operation);
    const what = slug ? `share page ${slug}` : 'the resource';
    const hint =
      state === 'processing'
        ? `${what} is still being published; try again later`
        : state === 'failed'
          ? `publishing ${what} failed; it must be published again in Descript, retrying will not help`
          : undefined;
    // Processing clears by itself; a failed publish (or any other conflict) does not.
    return new ConflictError(text(hint), { ...options, state, retryable: state === 'processing' });
  }
  const error = classifyByStatus(failure);
  error.message = withRequest(error.message, failure.requestId);
  return error;
}

/** A caller's id as an error quotes it: at most 200 characters, then the whole length. */
function quotedId(id: string): string {
  return id.length <= 200 ? id : `${id.slice(0, 200)}… (${id.length} characters)`;
}

const PROJECT_ACCESS = /\b(drive|project)\b/i;
const NOT_ABOUT_PROJECT = /\b(composition|conversation|workspace|job|share|publish)/i;

/**
 * Names the project in a 403 or 404 about it: a token reaches exactly one drive, and a project
 * of another drive answers 403 (or 404), which reads better with the id and the reason.
 * Errors about other things (a composition, a conversation, the agent switch) pass unchanged.
 */
export function explainProjectError(error: unknown, projectId: string): unknown {
  if (error instanceof AgentDisabledError) return error;
  const options = (cause: ConnectorError) => ({ status: cause.status, requestId: cause.requestId, cause });
  // The provider's own words, after the `METHOD /path: ` the SDK puts first.
  const said = (cause: ConnectorError) => cause.message.slice(cause.message.indexOf(': ') + 2);
  if (error instanceof PermissionError && PROJECT_ACCESS.test(said(error)) && !NOT_ABOUT_PROJECT.test(said(error))) {
    return new PermissionError(
      `project ${quotedId(projectId)} is not reachable with this token: it belongs to another drive, or the token's owner has no access to it (a Descript API token is tied to exactly one drive and inherits its creator's permissions there). ${error.message}`,
      options(error),
    );
  }
  if (error instanceof NotFoundError && /\bproject\b/i.test(said(error)) && !NOT_ABOUT_PROJECT.test(said(error))) {
    return new NotFoundError(
      `project ${quotedId(projectId)} was not found in the drive this token is tied to (projects.list and drive_items.search give the ids it can reach). ${error.message}`,
      options(error),
    );
  }
  return error;
}

/** Runs a call about one project and explains a 403 or 404 of it. */
export async function aboutProject<T>(projectId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw explainProjectError(error, projectId);
  }
}
