import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError, ConnectionConfigError, ConnectorError, writeAction } from '@plugboard/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import insurance from '../src/index.js';
import { QUOTE_REQUEST, REQUEST_ID, useHarness } from './support.js';

const start = useHarness();

/** A pass-through proxy in front of the simulator that keeps the headers the connector sent. */
const proxies: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((close) => close()));
});
async function proxy(
  target: string,
  answer?: (headers: IncomingHttpHeaders) => { status: number; body: string } | undefined,
) {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer(async (req, res) => {
    seen.push(req.headers);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const scripted = answer?.(req.headers);
    if (scripted) {
      res.writeHead(scripted.status, { 'content-type': 'text/plain', 'x-request-id': 'req_feedc0de' });
      res.end(scripted.body);
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
    ) as Record<string, string>;
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method!,
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxies.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('authentication', () => {
  it('sends the API key as a bearer token by default', async () => {
    const { sim, options } = await start();
    const front = await proxy(sim.url);
    await writeAction(
      insurance,
      'hospital_cash_basic_quotes.create',
      options(QUOTE_REQUEST, { connection: { baseUrl: front.url } }),
    );
    expect(front.seen[0]!.authorization).toBe(`Bearer ${sim.apiKey}`);
    expect(front.seen[0]!['x-api-key']).toBeUndefined();
    expect(sim.counters().quotesIssued).toBe(1);
  });

  it.each(['x-api-key', 'X-Api-Key'])(
    'sends it in X-Api-Key when the connection sets authScheme %s',
    async (authScheme) => {
      const { sim, options } = await start();
      const front = await proxy(sim.url);
      await writeAction(
        insurance,
        'motor_quotes.create',
        options({ vehicle: { value: 1 } }, { connection: { baseUrl: front.url, settings: { authScheme } } }),
      );
      expect(front.seen[0]!['x-api-key']).toBe(sim.apiKey);
      expect(front.seen[0]!.authorization).toBeUndefined();
      expect(sim.counters().created['/v2/motor/quotes']).toBe(1);
    },
  );

  it('refuses an auth scheme it does not know', async () => {
    const { sim, options } = await start();
    const error = await writeAction(
      insurance,
      'motor_quotes.list',
      options({}, { connection: { baseUrl: sim.url, settings: { authScheme: 'basic' } } }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionConfigError);
    expect((error as Error).message).toMatch(/accepts 'bearer' or 'x-api-key'/);
    expect(sim.requests).toHaveLength(0);
  });

  it('reports a wrong key as an authentication failure with the request id, without the key', async () => {
    const { sim, options } = await start();
    const error = await writeAction(
      insurance,
      'travel_policies.create',
      options({ a: 1 }, { credential: () => 'wrong_key_1234567' }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, requestId: sim.requests[0]!.requestId });
    expect((error as Error).message).not.toContain('wrong_key_1234567');
  });
});

describe('connections', () => {
  it('refuses a connection without a base URL, with a clear error, before anything is sent', async () => {
    const error = await writeAction(insurance, 'hospital_cash_basic_quotes.create', {
      input: QUOTE_REQUEST,
      credential: () => 'key_abcdef123456',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionConfigError);
    expect((error as Error).message).toContain('baseUrl');
    expect((error as Error).message).toContain("connector 'insurance'");
    expect(insurance.baseUrl).toBeUndefined();
  });

  it('refuses a secret in the connection settings (platform rule 10)', async () => {
    const { sim, options } = await start();
    const error = await writeAction(
      insurance,
      'motor_quotes.list',
      options({}, { connection: { baseUrl: sim.url, settings: { apiKey: sim.apiKey } } }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionConfigError);
    expect((error as Error).message).not.toContain(sim.apiKey);
    expect(sim.requests).toHaveLength(0);
  });
});

describe('the secret never appears in an error', () => {
  it('even when the provider echoes the credential in its error message', async () => {
    const { sim, options } = await start();
    const front = await proxy(sim.url, (headers) => ({
      status: 400,
      body: `Missing required field: vehicle.value (you sent ${headers.authorization} and ${headers['x-api-key']})`,
    }));
    for (const settings of [{}, { authScheme: 'x-api-key' }]) {
      const error = await writeAction(
        insurance,
        'motor_policies.create',
        options({ a: 1 }, { connection: { baseUrl: front.url, settings } }),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConnectorError);
      expect(error).toMatchObject({
        code: 'missing_required_field',
        field: 'vehicle.value',
        requestId: 'req_feedc0de',
      });
      expect((error as Error).message).not.toContain(sim.apiKey);
      expect(JSON.stringify((error as ConnectorError).toPlatformError('/x'))).not.toContain(sim.apiKey);
      expect((error as Error).message).toContain('[REDACTED]');
    }
  });

  it.each(['missing_auth', 'underwriting_unavailable', 'rate_limited'] as const)('in a %s failure', async (kind) => {
    const { sim, options } = await start();
    sim.failNext({ kind, status: 503, retryAfterSeconds: null });
    const error = (await writeAction(insurance, 'hospital_cash_policies.create', options({ q: 1 })).catch(
      (caught: unknown) => caught,
    )) as ConnectorError;
    expect(error.requestId).toMatch(REQUEST_ID);
    expect(`${error.message} ${JSON.stringify(error)} ${String(error.stack)}`).not.toContain(sim.apiKey);
  });
});
