import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  classifyByStatus,
  ConnectorError,
  defineAction,
  defineConnector,
  bearerToken,
  excerpt,
  InvalidInputError,
  QuotaExhaustedError,
  readAll,
  SchemaMismatchError,
  writeAction,
  zodIssues,
  type ProgressEvent,
} from '../src/index.js';
import { EXCERPT_LENGTH } from '../src/excerpt.js';
import {
  isSecretKey,
  jsonProblem,
  MAX_JSON_DEPTH,
  REDACTED,
  Redactor,
  prepareRun,
  providerMessage,
} from '../src/host.js';
import { MAX_ISSUES } from '../src/validation.js';
import { example } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

const h = useHarness();

/** Hostile texts of about `size` characters: one letter repeated, a base64 run, a 402 message, separators. */
function hostile(size: number): Record<string, string> {
  return {
    letters: 'A'.repeat(size),
    base64: Buffer.alloc(Math.ceil((size * 3) / 4), 0xfb)
      .toString('base64')
      .slice(0, size),
    quota: `Insufficient ${'media '.repeat(size / 6)}minutes to start the job (300 minutes required, 50 available)`,
    almost: 'canary-7f3'.repeat(size / 10),
    separators: '_-.'.repeat(size / 3),
  };
}

describe('excerpt', () => {
  it('keeps short text and cuts long text to a bounded excerpt with its length', () => {
    expect(excerpt('short')).toBe('short');
    expect(excerpt('x'.repeat(EXCERPT_LENGTH))).toBe('x'.repeat(EXCERPT_LENGTH));
    const cut = excerpt('y'.repeat(1_000_000));
    expect(cut).toBe(`${'y'.repeat(EXCERPT_LENGTH)}… (1000000 characters)`);
    // Never half of a surrogate pair.
    expect(excerpt(`${'a'.repeat(EXCERPT_LENGTH - 1)}😀😀`)).toBe(
      `${'a'.repeat(EXCERPT_LENGTH - 1)}… (${EXCERPT_LENGTH + 3} characters)`,
    );
  });
});

describe('hostile text through the redactor and the classifier', () => {
  const redactor = new Redactor(['canary-7f3a9c21d4e5b6a70c1d', 'other-secret-0042']);

  it.each([10_000, 100_000, 1_000_000])('finishes on %i characters and gives the types it promises', (size) => {
    for (const text of Object.values(hostile(size))) {
      expect(typeof redactor.redactString(text)).toBe('string');
      expect(redactor.containsSecret(text)).toBe(false);
      expect(redactor.containsSecretIn({ a: [text, { [text.slice(0, 100)]: text }] })).toBe(false);
      expect(typeof isSecretKey(text)).toBe('boolean');
      expect(isSecretKey(`${text}_password`)).toBe(true);
      const message = providerMessage(402, { message: text });
      expect(message.length).toBeLessThan(EXCERPT_LENGTH + 40);
      const error = classifyByStatus({
        status: 402,
        headers: new Headers(),
        body: { message: text },
        message,
        requestId: undefined,
        retryAfterMs: undefined,
        operation: 'POST /jobs',
      });
      expect(error).toBeInstanceOf(QuotaExhaustedError);
      expect(error.message.length).toBeLessThan(EXCERPT_LENGTH + 60);
    }
  });

  it('quotes at most an excerpt of a bare-text or nested provider message', () => {
    const long = 'z'.repeat(5000);
    expect(providerMessage(500, long)).toBe(excerpt(long));
    expect(providerMessage(500, { error: { message: long } })).toBe(excerpt(long));
    expect(providerMessage(500, { message: '  ' })).toBe('HTTP 500');
  });

  it('an error answer of a megabyte gives an error of a short message', async () => {
    const server = await h.start((req, res) =>
      json(res, 422, { message: `bad ${'q'.repeat(1_000_000)}`, request_id: 'r'.repeat(10_000) }),
    );
    const error = (await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught)) as ConnectorError;
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toContain('(1000004 characters)');
    expect(error.requestId!.length).toBeLessThan(EXCERPT_LENGTH + 30);
    expect(JSON.stringify(error.toPlatformError('/x')).length).toBeLessThan(700);
  });

  it('lists at most a bounded number of schema issues, each cut short', async () => {
    const strict = defineConnector({
      ...example,
      key: 'strict',
      actions: [
        defineAction({
          key: 'things.list',
          label: 'Things',
          direction: 'source',
          entity: z.strictObject({ id: z.string(), tags: z.array(z.string()) }).meta({ id: 'Thing' }),
          input: z.object({}),
          async *read(ctx) {
            yield { records: await ctx.http.get<{ id: string; tags: string[] }[]>('/things') };
          },
        }),
      ],
    });
    // One record with 502 problems: its id, 500 tags and a key of 5,000 characters the schema does not know.
    const records = [{ id: 1, tags: Array.from({ length: 500 }, (_, index) => index), [`k${'e'.repeat(5000)}`]: 1 }];
    const server = await h.start((req, res) => json(res, 200, records));
    const error = (await readAll(
      strict,
      'things.list',
      h.options({ input: {}, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught)) as SchemaMismatchError;
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error.issues).toHaveLength(MAX_ISSUES + 1);
    expect(error.issues.at(-1)).toEqual({ path: '...', message: `${502 - MAX_ISSUES} more issues not listed` });
    for (const issue of error.issues) expect(issue.message.length).toBeLessThanOrEqual(EXCERPT_LENGTH + 30);
    expect(error.message.length).toBeLessThan(MAX_ISSUES * 2 * (EXCERPT_LENGTH + 30));
  });

  it('cuts a zod message that quotes what it refuses', () => {
    const result = z.strictObject({}).safeParse({ [`k${'e'.repeat(100_000)}`]: 1 });
    expect(result.error!.issues[0]!.message.length).toBeGreaterThan(100_000);
    const [issue] = zodIssues(result.error!);
    expect(issue!.message).toMatch(/^Unrecognized key: "keee.*… \(\d+ characters\)$/);
    expect(issue!.message.length).toBeLessThan(EXCERPT_LENGTH + 30);
  });
});

describe('a provider that echoes the credential', () => {
  const canary = 'canary-7f3a9c21d4e5b6a70c1d';
  const hex = Buffer.from(canary).toString('hex');
  const forms = [
    canary,
    hex,
    hex.toUpperCase(),
    Buffer.from(canary).toString('base64').replace(/=+$/, ''),
    encodeURIComponent(canary),
  ];
  const expectNoCanary = (text: string) => {
    for (const form of forms) expect(text).not.toContain(form);
  };

  // An action that reports the provider's job status as progress and yields the job's data.
  const Job = z
    .object({
      id: z.string(),
      status: z.string(),
      data: z.record(z.string(), z.string()),
      request: z.string().optional(),
    })
    .meta({ id: 'EchoJob' });
  const echo = defineConnector({
    key: 'echo',
    name: 'Echo',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'A provider that echoes what it was sent.',
    auth: bearerToken(),
    rateLimits: {},
    actions: [
      defineAction({
        key: 'jobs.get',
        label: 'Get a job',
        direction: 'source',
        entity: Job,
        input: z.object({ id: z.string() }),
        async *read(ctx, input) {
          const answer = await ctx.http.request<{ status: string; note: string; data: Record<string, string> }>({
            path: '/jobs/{id}',
            params: { id: input.id },
          });
          ctx.progress({ label: `job ${answer.data.status}: ${answer.data.note}`, done: 1, total: 2 });
          ctx.log.warn('job state', { status: answer.data.status, requestId: answer.requestId });
          yield {
            records: [
              { id: input.id, status: answer.data.status, data: answer.data.data, request: answer.requestId ?? '' },
            ],
          };
        },
      }),
    ],
  });

  const run = (baseUrl: string, progress: ProgressEvent[] = []) =>
    readAll(
      echo,
      'jobs.get',
      h.options({
        input: { id: 'j1' },
        connection: { baseUrl },
        credential: () => canary,
        onProgress: (event) => void progress.push(event),
      }),
    );

  it('keeps it out of request ids, progress, log entries and records', async () => {
    const server = await h.start((req, res) => {
      const token = String(req.headers.authorization).replace('Bearer ', '');
      json(
        res,
        200,
        {
          status: `running for ${token}`,
          note: `token=${token}`,
          data: {
            [token]: 'as a key',
            hex: Buffer.from(token).toString('hex'),
            HEX: Buffer.from(token).toString('hex').toUpperCase(),
          },
        },
        { 'x-request-id': `req-${token}` },
      );
    });
    const progress: ProgressEvent[] = [];
    const { records } = await run(server.url, progress);
    expect(records).toEqual([
      {
        id: 'j1',
        status: `running for ${REDACTED}`,
        data: { [REDACTED]: 'as a key', hex: REDACTED, HEX: REDACTED },
        request: `req-${REDACTED}`,
      },
    ]);
    expect(progress).toMatchObject([
      {
        label: `job running for ${REDACTED}: token=${REDACTED}`,
        done: 1,
        total: 2,
        connector: 'echo',
        action: 'jobs.get',
      },
    ]);
    expect(h.logs).toMatchObject([{ message: 'job state', requestId: `req-${REDACTED}` }]);
    expectNoCanary(JSON.stringify({ records, progress, logs: h.logs }));
  });

  it.each([
    ['the x-request-id header', { 'x-request-id': 'ECHO' }, {}],
    ['the request_id of the error body', {}, { request_id: 'ECHO' }],
    ['a header and the body', { 'request-id': 'id ECHO' }, { requestId: 'ECHO' }],
  ])("keeps it out of an error's request id when %s carries it", async (_, headers, body) => {
    const server = await h.start((req, res) => {
      const token = String(req.headers.authorization).replace('Bearer ', '');
      const fill = (record: Record<string, string>) =>
        Object.fromEntries(Object.entries(record).map(([key, value]) => [key, value.replace('ECHO', token)]));
      json(res, 403, { message: `token ${token} may not`, ...fill(body) }, fill(headers));
    });
    const error = (await run(server.url).catch((caught: unknown) => caught)) as ConnectorError;
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error.requestId).toContain(REDACTED);
    expect(error.toPlatformError('/run').requestId).toContain(REDACTED);
    expectNoCanary(
      `${error.message} ${error.requestId} ${JSON.stringify(error.toPlatformError('/run'))} ${JSON.stringify(error)} ${JSON.stringify(h.logs)}`,
    );
  });

  it('keeps it out of the request id a schema mismatch names', async () => {
    const server = await h.start((req, res) =>
      json(res, 200, { status: 7 }, { 'x-request-id': String(req.headers.authorization) }),
    );
    const error = (await run(server.url).catch((caught: unknown) => caught)) as ConnectorError;
    expect(error).toBeInstanceOf(ConnectorError);
    expectNoCanary(`${error.message} ${error.requestId} ${JSON.stringify(error.toPlatformError('/run'))}`);
  });
});

describe('input that is not a JSON object', () => {
  const order = { customer: { email: 'a@example.com', name: 'A' }, quantity: 1 };
  const refused = (input: unknown) => {
    try {
      prepareRun(example, 'orders.create', { input, connection: { baseUrl: 'http://127.0.0.1:9' } });
    } catch (error) {
      return error as InvalidInputError;
    }
    throw new Error('the input was accepted');
  };

  it.each([
    [null, 'null'],
    [[order], 'an array'],
    ['{"quantity":1}', 'a string'],
    [42, 'a number'],
    [true, 'a boolean'],
    [new Date(0), 'a Date'],
    [new Map(), 'a Map'],
  ])('refuses a root of %j as invalid input', (input, kind) => {
    const error = refused(input);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.issues).toEqual([{ path: '', message: `must be a JSON object, not ${kind}` }]);
    expect(error.message).toBe(`example orders.create: input: (root): must be a JSON object, not ${kind}`);
  });

  it('takes no input at all as an empty object', () => {
    expect(
      prepareRun(example, 'items.list', { input: undefined, connection: { baseUrl: 'http://127.0.0.1:9' } }).input,
    ).toEqual({ limit: 10 });
  });

  it('refuses values JSON cannot carry, naming their path', () => {
    class Widget {
      size = 1;
    }
    const cyclic: Record<string, unknown> = { name: 'A' };
    cyclic.self = { again: cyclic };
    const cases: Array<[unknown, string, string]> = [
      [{ ...order, quantity: Number.NaN }, 'quantity', 'NaN is not a JSON number'],
      [{ ...order, quantity: Number.POSITIVE_INFINITY }, 'quantity', 'Infinity is not a JSON number'],
      [{ ...order, quantity: 1n }, 'quantity', 'a bigint is not a JSON value'],
      [{ ...order, note: () => 'x' }, 'note', 'a function is not a JSON value'],
      [{ ...order, note: Symbol('x') }, 'note', 'a symbol is not a JSON value'],
      [
        { ...order, customer: { ...order.customer, tags: [1, [2, new Date(0)]] } },
        'customer.tags.1.1',
        'a Date is not a JSON value; pass the time as an ISO 8601 string',
      ],
      [
        { ...order, customer: { ...order.customer, seen: new Map() } },
        'customer.seen',
        'a Map is not a JSON value; pass plain objects, arrays, strings, numbers, booleans and null',
      ],
      [
        { ...order, note: new Widget() },
        'note',
        'a Widget instance is not a JSON value; pass plain objects, arrays, strings, numbers, booleans and null',
      ],
      [{ ...order, customer: cyclic }, 'customer.self.again', 'the value contains itself'],
      [
        {
          ...order,
          get note(): string {
            throw new Error('no note today');
          },
        },
        'note',
        'could not be read (no note today)',
      ],
    ];
    for (const [input, path, message] of cases) {
      const error = refused(input);
      expect(error, path).toBeInstanceOf(InvalidInputError);
      expect(error.issues, path).toEqual([{ path, message }]);
      expect(error.message, path).toBe(`example orders.create: input: ${path}: ${message}`);
    }
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels before zod sees it, even 100,000 deep`, () => {
    const nested = (depth: number) => {
      const root: Record<string, unknown> = {};
      let at = root;
      for (let level = 1; level < depth; level += 1) at = (at.a = {}) as Record<string, unknown>;
      return root;
    };
    expect(
      prepareRun(example, 'orders.create', {
        input: { ...order, customer: { ...order.customer, extra: nested(MAX_JSON_DEPTH - 2) } },
        connection: { baseUrl: 'http://127.0.0.1:9' },
      }),
    ).toBeDefined();
    for (const depth of [MAX_JSON_DEPTH + 1, 2_000, 100_000]) {
      const error = refused(JSON.parse(`${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.issues).toHaveLength(1);
      expect(error.issues[0]!.path).toBe(excerpt(Array.from({ length: MAX_JSON_DEPTH }, () => 'a').join('.')));
      expect(error.issues[0]!.message).toBe(`nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
    }
    expect(jsonProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonProblem(nested(MAX_JSON_DEPTH + 1))?.message).toContain('nested deeper');
  });

  it('refuses such input before anything is sent, and a bad checkpoint too', async () => {
    const server = await h.start((req, res) => json(res, 201, { order_id: 'o1', amount: '1.00' }));
    for (const input of [null, [], 'x', { ...order, quantity: Number.NaN }]) {
      await expect(
        writeAction(example, 'orders.create', h.options({ input, connection: { baseUrl: server.url } })),
      ).rejects.toBeInstanceOf(InvalidInputError);
    }
    const error = await readAll(
      example,
      'items.list',
      h.options({ input: {}, checkpoint: { updated_after: 1n }, connection: { baseUrl: server.url } }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      issues: [{ path: 'checkpoint.updated_after', message: 'a bigint is not a JSON value' }],
    });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses connection settings nested too deep or not JSON before rule 10 walks them', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    expect(() =>
      prepareRun(example, 'items.list', {
        input: {},
        connection: { baseUrl: 'http://127.0.0.1:9', settings: { region: deep } },
      }),
    ).toThrow(
      `connection settings must be plain JSON data: settings.region${'.a'.repeat(MAX_JSON_DEPTH - 1)}: nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`,
    );
    expect(() =>
      prepareRun(example, 'items.list', {
        input: {},
        connection: { baseUrl: 'http://127.0.0.1:9', settings: { region: Number.NaN } },
      }),
    ).toThrow('connection settings must be plain JSON data: settings.region: NaN is not a JSON number');
  });

  describe('keys that reach an object prototype', () => {
    const labels = defineConnector({
      ...example,
      key: 'labels',
      actions: [
        defineAction({
          key: 'labels.set',
          label: 'Set labels',
          direction: 'destination',
          entity: z.object({ ok: z.boolean() }).meta({ id: 'LabelsResult' }),
          retry: 'never',
          input: z.object({
            labels: z.record(z.string(), z.string()),
            extra: z.object({ meta: z.record(z.string(), z.unknown()) }).optional(),
          }),
          async write(ctx, input) {
            return ctx.http.post('/labels', input);
          },
        }),
      ],
    });

    it.each([
      ['{"labels":{"__proto__":"x"}}', 'labels.__proto__'],
      ['{"labels":{"__proto__":{"polluted":true}}}', 'labels.__proto__'],
      ['{"__proto__":{"polluted":true},"labels":{}}', '__proto__'],
      [
        '{"labels":{"a":"b"},"extra":{"meta":{"deep":[{"x":1},{"__proto__":{"polluted":true}}]}}}',
        'extra.meta.deep.1.__proto__',
      ],
      ['{"labels":{"constructor":{"prototype":{"polluted":true}}}}', 'labels.constructor.prototype'],
      [
        '{"labels":{},"extra":{"meta":{"constructor":{"prototype":{"polluted":true}}}}}',
        'extra.meta.constructor.prototype',
      ],
    ])('refuses %s naming %s, and the provider hears nothing', async (text, path) => {
      const server = await h.start((req, res) => json(res, 200, { ok: true }));
      const error = await writeAction(
        labels,
        'labels.set',
        h.options({ input: JSON.parse(text), connection: { baseUrl: server.url } }),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).issues).toEqual([{ path, message: expect.stringContaining('prototype') }]);
      expect((error as Error).message).toContain(`labels labels.set: input: ${path}: `);
      expect(server.requests).toHaveLength(0);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('takes `constructor` and `prototype` as ordinary keys where they lead to no prototype', async () => {
      const server = await h.start((req, res) => json(res, 200, { ok: true }));
      const input = JSON.parse('{"labels":{"constructor":"x","prototype":"y"},"extra":{"meta":{"prototype":{"a":1}}}}');
      await writeAction(labels, 'labels.set', h.options({ input, connection: { baseUrl: server.url } }));
      expect(server.requests).toHaveLength(1);
      expect(JSON.parse(server.requests[0]!.body)).toEqual(input);
    });

    it('refuses such a key in connection settings too', () => {
      expect(() =>
        prepareRun(example, 'items.list', {
          input: {},
          connection: { baseUrl: 'http://127.0.0.1:9', settings: JSON.parse('{"proxy":{"__proto__":{"host":"x"}}}') },
        }),
      ).toThrow('connection settings must be plain JSON data: settings.proxy.__proto__: ');
    });
  });

  it('quotes at most an excerpt of a long input in an issue', () => {
    const error = refused({
      ...order,
      customer: { email: 'x'.repeat(100_000), name: 'A' },
      ['k'.repeat(100_000)]: { b: Number.NaN },
    });
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message.length).toBeLessThan(600);
  });
});
