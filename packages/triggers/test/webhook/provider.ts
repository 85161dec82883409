import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signStandardWebhook } from '@plugboard/sdk';
import type { Clock } from '@plugboard/sdk/host';

/**
 * A provider with webhooks, started on 127.0.0.1 on a free port: `POST /webhooks` subscribes
 * (answering an id, an expiry `lifeMs` ahead on the test's clock and the secret the body offers,
 * else a `whsec_` secret of its own), `PATCH /webhooks/:id` renews, `DELETE /webhooks/:id` ends; `POST /orders/import` takes
 * records (the run a delivery starts). Every call is recorded; `send` posts a Standard
 * Webhooks-signed event to each live subscription's URL.
 */

export const PROVIDER_TOKEN = 'provider-token-webhooks-5b2e8c1d9f';

export interface ProviderCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | undefined;
}

export interface Subscription {
  id: string;
  url: string;
  secret: string;
  expiresAt: number;
}

function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => resolve(text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>)));
  });
}

function answer(response: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) return void response.writeHead(status).end();
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startProvider(clock: Clock, lifeMs: number) {
  const calls: ProviderCall[] = [];
  const live = new Map<string, Subscription>();
  const imports: unknown[][] = [];
  let failRenewals = 0;
  let refuseSubscribes = 0;
  const iso = (ms: number) => new Date(ms).toISOString();
  const server = createServer(async (request, response) => {
    const body = await readJson(request);
    const path = request.url ?? '';
    calls.push({ method: request.method ?? '', path, authorization: request.headers.authorization, body });
    if (request.headers.authorization !== `Bearer ${PROVIDER_TOKEN}`) return answer(response, 401, { error: 'no' });
    const id = /^\/webhooks\/([a-z0-9_]+)$/.exec(path)?.[1];
    if (request.method === 'POST' && path === '/webhooks') {
      if (refuseSubscribes > 0) {
        refuseSubscribes -= 1;
        // As careless providers do: the request, secret and all, quoted in the refusal.
        return answer(response, 400, { error: `subscription refused: ${JSON.stringify(body)}` });
      }
      const made = {
        id: `wh_${live.size + 1}_${randomBytes(3).toString('hex')}`,
        url: String(body?.url),
        // The secret the subscriber offered, else one of its own.
        secret: typeof body?.secret === 'string' ? body.secret : `whsec_${randomBytes(24).toString('base64')}`,
        expiresAt: clock.now() + lifeMs,
      };
      live.set(made.id, made);
      return answer(response, 201, { id: made.id, expiresAt: iso(made.expiresAt), secret: made.secret });
    }
    if (request.method === 'POST' && path === '/orders/import') {
      imports.push((body?.records as unknown[]) ?? []);
      return answer(response, 201, { imported: imports.at(-1)!.length });
    }
    const found = id === undefined ? undefined : live.get(id);
    if (!found) return answer(response, 404, { error: 'no such subscription' });
    if (request.method === 'PATCH') {
      if (failRenewals > 0) {
        failRenewals -= 1;
        return answer(response, 503, { error: 'try later' });
      }
      found.expiresAt = clock.now() + lifeMs;
      return answer(response, 200, { id: found.id, expiresAt: iso(found.expiresAt) });
    }
    if (request.method === 'DELETE') {
      live.delete(found.id);
      return answer(response, 204);
    }
    return answer(response, 405, { error: 'no' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    live,
    imports,
    /** The next `count` renewals fail with a 503. */
    failNextRenewals(count: number) {
      failRenewals = count;
    },
    /** The next `count` subscribes are refused with a 400 that quotes the request's body. */
    refuseNextSubscribes(count: number) {
      refuseSubscribes = count;
    },
    /** Posts an event, signed as Standard Webhooks says, to the subscription's URL. */
    async send(
      subscription: Subscription,
      event: unknown,
      options: { eventId: string; secret?: string /** Seconds from now on the clock. */; timestamp?: number },
    ) {
      const text = JSON.stringify(event);
      const timestamp = Math.floor(clock.now() / 1000) + (options.timestamp ?? 0);
      const signature = signStandardWebhook({
        secret: options.secret ?? subscription.secret,
        eventId: options.eventId,
        timestamp,
        body: text,
      });
      const response = await fetch(subscription.url, {
        method: 'POST',
        body: text,
        headers: {
          'content-type': 'application/json',
          'webhook-id': options.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
        },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type Provider = Awaited<ReturnType<typeof startProvider>>;
