import { type Answer, answer, type FaultServer, type SeenRequest, startFaultServer } from '@plugboard/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/**
 * The shop's provider, answered through the testing kit's fault server: JSON with a
 * request id, a paged incremental list of items, the account (`GET /me`, the connection
 * check), and 201 for every write. It accepts one fixed bearer token, or only access tokens
 * an OAuth2 authorization server issued (checked with jose against the issuer's JWKS).
 */

export interface ShopItem {
  id: string;
  name: string;
  updated_at: string;
}

/** A JSON answer carrying an `x-request-id`, as a provider sends it. */
export function reply(status: number, body: unknown): Answer {
  return answer({ status, body, headers: { 'x-request-id': `req_${Math.random().toString(16).slice(2, 10)}` } });
}

/** `count` items `item_001`, `item_002` ... with `updated_at` one second apart. */
export function items(count: number): ShopItem[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `item_${String(index + 1).padStart(3, '0')}`,
    name: `Item ${index + 1}`,
    updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  }));
}

/** Answers `GET /items?limit&cursor&updated_after` from a list: `{data, next}`, `next` the id the next page starts at. */
export function itemsPage(all: readonly ShopItem[], query: URLSearchParams): { data: ShopItem[]; next?: string } {
  const limit = Number(query.get('limit') ?? 10);
  const after = query.get('updated_after');
  const cursor = query.get('cursor');
  const from = all.filter((item) => after === null || item.updated_at > after);
  const start = cursor ? from.findIndex((item) => item.id === cursor) : 0;
  const data = from.slice(start, start + limit);
  const next = from[start + limit]?.id;
  return next ? { data, next } : { data };
}

export interface ShopProviderOptions {
  /** The items `GET /items` pages through; default `items(5)`. */
  items?: readonly ShopItem[];
  /** When set, a request without `Authorization: Bearer <token>` gets a 401. */
  token?: string;
  /** When set, a request gets a 401 unless its bearer token is an access token `issuer` signed for `audience`. */
  oauth?: ShopOAuth;
}

/** The authorization server whose access tokens the provider accepts. */
export interface ShopOAuth {
  issuer: string;
  jwksUrl: string;
  /** The `aud` an access token must carry. */
  audience: string;
  /** Milliseconds since the epoch by which expiry is judged (the authorization server's clock); default `Date.now`. */
  now?: () => number;
}

const UNAUTHORIZED = { error: 'unauthorized', message: 'bad token' };

/**
 * What the provider answers: 401 `bad token` for a wrong credential, a page of items for
 * `GET /items`, and for a write a 201 with a job (`/jobs`) or an order priced by its
 * quantity (ten a piece); `sequence` numbers the ids.
 */
export function shopAnswer(request: SeenRequest, options: ShopProviderOptions = {}, sequence = 1): Answer {
  if (options.token !== undefined && request.headers.authorization !== `Bearer ${options.token}`) {
    return reply(401, UNAUTHORIZED);
  }
  if (request.method === 'GET' && request.path === '/me') return reply(200, { id: 'account_1', name: 'Shop' });
  if (request.method === 'GET' && request.path === '/items')
    return reply(200, itemsPage(options.items ?? items(5), request.query));
  if (request.method !== 'POST') return reply(404, { error: 'not_found', message: `no ${request.path}` });
  if (request.path === '/jobs') return reply(201, { job_id: `job_${sequence}`, state: 'done' });
  const body = JSON.parse(request.body || '{}') as Record<string, unknown>;
  return reply(201, { order_id: `ord_${sequence}`, amount: `${Number(body.quantity ?? 1) * 10}.00` });
}

/** Whether the request's bearer token is an access token of `oauth`'s issuer, unexpired on its clock. */
function verifier(oauth: ShopOAuth): (request: SeenRequest) => Promise<boolean> {
  const keys = createRemoteJWKSet(new URL(oauth.jwksUrl));
  return async (request) => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token) return false;
    try {
      await jwtVerify(token, keys, {
        issuer: oauth.issuer,
        audience: oauth.audience,
        currentDate: new Date((oauth.now ?? Date.now)()),
      });
      return true;
    } catch {
      return false;
    }
  };
}

/** The shop's provider on 127.0.0.1; `requests` lists what reached it. */
export async function startShopProvider(options: ShopProviderOptions = {}): Promise<FaultServer> {
  const verified = options.oauth ? verifier(options.oauth) : undefined;
  const server: FaultServer = await startFaultServer(async (request) => {
    if (verified && !(await verified(request))) return reply(401, UNAUTHORIZED);
    return shopAnswer(request, options, server.count);
  });
  return server;
}
