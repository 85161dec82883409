import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  ConnectorError,
  InvalidInputError,
  NotFoundError,
  PermissionError,
  ProviderRejectedError,
  ProviderUnavailableError,
  QuotaExhaustedError,
  RateLimitedError,
  readAll,
  SchemaMismatchError,
  writeAction,
} from '../src/index.js';
import { example } from './support/connector.js';
import { fastRetry, useHarness } from './support/harness.js';
import { json } from './support/server.js';

const h = useHarness();
const fast = fastRetry(3);
const order = { customer: { email: 'ada@example.com', name: 'Ada' }, quantity: 2 };

async function failureOf(status: number, body: unknown, headers: Record<string, string> = {}): Promise<ConnectorError> {
  const server = await h.start((req, res) => json(res, status, body, { 'x-request-id': 'req_4f2a', ...headers }));
  const error = await readAll(
    example,
    'items.get',
    h.options({ input: { id: 'p1' }, connection: { baseUrl: server.url }, retry: fast }),
  ).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

describe('402 quota exhausted', () => {
  it.each([
    [
      'at the top',
      {
        error: 'payment_required',
        message: 'Out of minutes',
        quota: 'Media minutes',
        unit: 'minutes',
        required: 300,
        available: 50,
      },
      'media_minutes',
      'minutes',
      300,
      50,
    ],
    [
      'under error',
      { error: { message: 'Out of credits', quota: 'ai_credits', unit: 'credits', required: 100, available: 25 } },
      'ai_credits',
      'credits',
      100,
      25,
    ],
  ])(
    'names the quota the body gives as fields (%s) and is never retried',
    async (_where, body, quota, unit, required, available) => {
      const server = await h.start((req, res) => json(res, 402, body, { 'x-request-id': 'req_402' }));
      const error = await writeAction(
        example,
        'orders.create',
        h.options({ input: order, connection: { baseUrl: server.url } }),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(QuotaExhaustedError);
      expect(error).toMatchObject({
        code: 'quota_exhausted',
        retryable: false,
        quota,
        unit,
        required,
        available,
        status: 402,
        requestId: 'req_402',
      });
      expect(server.requests).toHaveLength(1);
    },
  );

  it("is not retried on a read either; a provider's words alone name no quota (its connector reads them)", async () => {
    const error = await failureOf(402, {
      error: 'payment_required',
      message: 'Insufficient media minutes to start the job (300 minutes required, 50 available)',
    });
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error).toMatchObject({ quota: undefined, unit: undefined, required: undefined, available: undefined });
    expect(h.server.requests).toHaveLength(1);
  });
});

describe('5xx', () => {
  it('is retried for reads until it succeeds', async () => {
    let calls = 0;
    const server = await h.start((req, res) => {
      calls += 1;
      if (calls < 3) json(res, 503, { error: 'unavailable', message: 'try later' });
      else json(res, 200, { id: 'p1', name: 'One', updated_at: '2026-11-01T00:00:00Z' });
    });
    const { records } = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'p1' }, connection: { baseUrl: server.url }, retry: fast }),
    );
    expect(records).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after the retries with a provider-unavailable error', async () => {
    const error = await failureOf(502, 'Bad Gateway');
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.retryable).toBe(true);
    expect(h.server.requests).toHaveLength(1 + fast.retries);
  });

  it.each([500, 503, 429])(
    'is never retried for a billable write (%i): the server sees exactly one request',
    async (status) => {
      const server = await h.start((req, res) =>
        json(res, status, { error: 'x', message: 'failed' }, { 'retry-after': '0' }),
      );
      const error = await writeAction(
        example,
        'orders.create',
        h.options({ input: order, connection: { baseUrl: server.url }, retry: fast }),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(status === 429 ? RateLimitedError : ProviderUnavailableError);
      expect(server.requests).toHaveLength(1);
    },
  );
});

describe('status mapping', () => {
  it.each([
    [401, AuthenticationError, 'authentication_failed'],
    [403, PermissionError, 'permission_denied'],
    [404, NotFoundError, 'not_found'],
    [422, ProviderRejectedError, 'provider_rejected'],
  ])('%i gives %o', async (status, kind, code) => {
    const error = await failureOf(status, { error: 'x', message: 'the provider says no' });
    expect(error).toBeInstanceOf(kind);
    expect(error).toMatchObject({ code, status, requestId: 'req_4f2a', retryable: false });
    expect(error.message).toBe('GET /items/p1: the provider says no');
    expect(h.server.requests).toHaveLength(1);
  });

  it('409 carries the state; processing may be retried later, failed may not', async () => {
    const processing = await failureOf(409, {
      error: 'conflict',
      message: 'Publish is processing',
      state: 'processing',
    });
    expect(processing).toBeInstanceOf(ConflictError);
    expect(processing).toMatchObject({ state: 'processing', retryable: true });
    const failed = await failureOf(409, { error: 'conflict', message: 'Publish failed', state: 'failed' });
    expect(failed).toMatchObject({ state: 'failed', retryable: false });
    // A conflict is reported, not hammered: one request each.
    expect(h.server.requests).toHaveLength(1);
  });

  it('takes the request id from the body when no header carries it', async () => {
    const server = await h.start((req, res) => {
      res.writeHead(422, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'invalid', message: 'bad field', request_id: 'req_9b1c', field: 'vehicle.value' }),
      );
    });
    const error = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'p1' }, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ requestId: 'req_9b1c', field: 'vehicle.value' });
  });

  it('copes with a bare-text error body', async () => {
    const server = await h.start((req, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('something went wrong upstream');
    });
    const error = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'p1' }, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('GET /items/p1: something went wrong upstream');
  });

  it('names action, field path and request id when the answer does not match the schema', async () => {
    const server = await h.start((req, res) =>
      json(
        res,
        200,
        {
          data: [
            { id: 'a', name: 'A', updated_at: '2026-11-01' },
            { id: 'b', name: 42, updated_at: '2026-11-02' },
          ],
        },
        { 'x-request-id': 'req_77' },
      ),
    );
    const error = await readAll(
      example,
      'items.list',
      h.options({ input: {}, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toMatchObject({ action: 'example items.list', requestId: 'req_77' });
    expect((error as SchemaMismatchError).issues.map((issue) => issue.path)).toEqual(['records.1.name']);
    expect((error as Error).message).toMatch(
      /example items\.list: the provider's answer does not match the declared schema \(request req_77\): records\.1\.name: /,
    );
  });
});

describe('the platform Error shape', () => {
  it('reports an answer that does not match its schema as a 502, never as the 2xx it came with', async () => {
    const server = await h.start((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_bad' });
      res.end('{"id": ');
    });
    const error = (await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'p1' }, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught)) as SchemaMismatchError;
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error.message).toMatch(/^example items\.get: .*GET \/items\/p1: the answer is not valid JSON/);
    expect(error.toPlatformError('/p')).toMatchObject({
      error: 'internal_server_error',
      statusCode: 502,
      requestId: 'req_bad',
      code: 'schema_mismatch',
    });
  });

  it('maps 4xx to request_failed and 5xx to internal_server_error with status, request id, path and code', async () => {
    const notFound = await failureOf(404, { error: 'not_found', message: 'no such project' });
    expect(notFound.toPlatformError('/api/flows/f1/runs')).toEqual({
      error: 'request_failed',
      message: 'GET /items/p1: no such project',
      statusCode: 404,
      requestId: 'req_4f2a',
      path: '/api/flows/f1/runs',
      code: 'not_found',
    });
    const unavailable = await failureOf(503, { message: 'down' });
    expect(unavailable.toPlatformError('/p')).toMatchObject({
      error: 'internal_server_error',
      statusCode: 503,
      code: 'provider_unavailable',
    });
  });

  it('reports errors without a provider answer with a fitting status', () => {
    const invalid = new InvalidInputError('x', [{ path: 'a.b', message: 'Required' }]);
    expect(invalid.toPlatformError('/p', 'req_platform')).toEqual({
      error: 'request_failed',
      message: 'x: a.b: Required',
      statusCode: 400,
      requestId: 'req_platform',
      path: '/p',
      code: 'invalid_input',
    });
    expect(new RateLimitedError('wait', 5000).toPlatformError('/p')).toMatchObject({
      statusCode: 429,
      error: 'request_failed',
    });
  });
});

describe('a ConnectorError of its own', () => {
  it('takes its message, then its code, retryability, platform status and the provider details as options', () => {
    const cause = new Error('underneath');
    const error = new ConnectorError('quotes differ in currency', {
      code: 'quotes_not_comparable',
      retryable: false,
      platformStatus: 502,
      requestId: 'req_9',
      cause,
    });
    expect(error).toMatchObject({
      name: 'ConnectorError',
      message: 'quotes differ in currency',
      code: 'quotes_not_comparable',
      retryable: false,
      platformStatus: 502,
      status: undefined,
      requestId: 'req_9',
      cause,
    });
    expect(
      new ConnectorError('busy', { code: 'busy', retryable: true, platformStatus: 503, status: 409 }),
    ).toMatchObject({ retryable: true, status: 409 });
  });

  it('refuses the removed positional form, naming the options it needs', () => {
    const Untyped = ConnectorError as unknown as new (...args: unknown[]) => ConnectorError;
    expect(() => new Untyped('quota_exhausted', 'out of credits', false, 402)).toThrow(
      /ConnectorError\(message, \{ code, retryable, platformStatus \}\).*options\.code/,
    );
    expect(() => new Untyped('out of credits', { retryable: false, platformStatus: 402 })).toThrow(TypeError);
  });
});
