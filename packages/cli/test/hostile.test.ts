import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shop, startShopProvider } from '@plugboard/example-connector';
import { REDACTED } from '@plugboard/sdk/host';
import { answer, type FaultServer, startFaultServer } from '@plugboard/testing';
import { runCli } from '../src/index.js';
import { bufferIo, TOKEN } from './support.js';

const pack = new Map([['shop', shop]]);
let server: FaultServer;
beforeEach(async () => {
  server = await startShopProvider({ token: TOKEN });
});
afterEach(async () => {
  await server.close();
});

/** The platform Error the CLI printed last on stderr. */
function printedError(stderr: string): {
  error: string;
  message: string;
  statusCode: number;
  requestId: string;
  code: string;
} {
  return JSON.parse(stderr.trim().split('\n').at(-1)!) as ReturnType<typeof printedError>;
}

async function run(argv: string[], env: Record<string, string> = { PLUGBOARD_CREDENTIAL: TOKEN }) {
  const { io, stdout, stderr } = bufferIo(env);
  const code = await runCli([...argv, '--base-url', server.url], io, { pack });
  return { code, stdout: stdout(), stderr: stderr() };
}

const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

describe('plugboard run with hostile input', () => {
  it.each([
    ['null', 'null'],
    ['[{"sku":"A1","quantity":1}]', 'an array'],
    ['"{}"', 'a string'],
    ['42', 'a number'],
  ])('refuses --input %s (not an object) with exit 2, before any request', async (input, kind) => {
    const { code, stdout, stderr } = await run(['run', 'shop', 'orders.create', '--input', input]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(printedError(stderr)).toMatchObject({
      error: 'request_failed',
      statusCode: 400,
      code: 'invalid_input',
      message: `plugboard: --input: must be a JSON object, not ${kind}`,
    });
    expect(server.requests).toEqual([]);
  });

  it.each([65, 2_000, 100_000])(
    'refuses --input nested %i levels deep as invalid input, naming the path',
    async (depth) => {
      const { code, stderr } = await run(['run', 'shop', 'items.list', '--input', nested(depth)]);
      expect(code).toBe(2);
      const error = printedError(stderr);
      expect(error).toMatchObject({ error: 'request_failed', statusCode: 400, code: 'invalid_input' });
      expect(error.message).toBe(
        `plugboard: --input: ${Array.from({ length: 64 }, () => 'a').join('.')}: nested deeper than 64 levels of objects and arrays`,
      );
      expect(server.requests).toEqual([]);
    },
  );

  it('refuses a number JSON reads as Infinity, naming the field', async () => {
    const { code, stderr } = await run(['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1e999}']);
    expect(code).toBe(2);
    expect(printedError(stderr).message).toBe('plugboard: --input: quantity: Infinity is not a JSON number');
    expect(server.requests).toEqual([]);
  });

  it('refuses deeply nested --connection settings before rule 10 walks them', async () => {
    const { code, stderr } = await run(['run', 'shop', 'items.list', '--connection', `{"region":${nested(100_000)}}`]);
    expect(code).toBe(2);
    expect(printedError(stderr)).toMatchObject({ code: 'invalid_connection' });
    expect(printedError(stderr).message).toContain('nested deeper than 64 levels');
    expect(server.requests).toEqual([]);
  });

  it.each([
    ['--input that is not JSON', ['run', 'shop', 'orders.create', '--input', `{"sku":"${'x'.repeat(1_000_000)}`]],
    [
      'a long --input the schema refuses',
      [
        'run',
        'shop',
        'orders.create',
        '--input',
        JSON.stringify({ sku: 'A1', quantity: 'q'.repeat(1_000_000), [`k${'e'.repeat(1_000_000)}`]: 1 }),
      ],
    ],
    ['an unknown action of a megabyte', ['run', 'shop', `orders.${'x'.repeat(1_000_000)}`]],
    ['an unknown connector of a megabyte', ['run', `s${'x'.repeat(1_000_000)}`, 'items.list']],
    ['a long --environment', ['run', 'shop', 'items.list', '--environment', 'x'.repeat(1_000_000)]],
    ['long unexpected arguments', ['run', 'shop', 'items.list', 'x'.repeat(1_000_000)]],
    ['a long unknown option', ['run', 'shop', 'items.list', `--${'x'.repeat(1_000_000)}`]],
  ])('quotes at most an excerpt of %s', async (_, argv) => {
    const { code, stderr } = await run(argv);
    expect(code).toBe(2);
    expect(stderr.length).toBeLessThan(1500);
    expect(printedError(stderr)).toMatchObject({
      error: 'request_failed',
      code: expect.stringMatching(/^(invalid_input|unknown_action)$/),
    });
    expect(server.requests).toEqual([]);
  });
});

describe('plugboard run against a provider that echoes the credential', () => {
  it('prints no credential in the Error JSON, its request id included', async () => {
    await server.close();
    server = await startFaultServer((request) => {
      const token = String(request.headers.authorization).replace('Bearer ', '');
      return answer({
        status: 401,
        headers: { 'x-request-id': `req-${token}` },
        body: { message: `token ${token} is revoked`, request_id: token },
      });
    });
    const { code, stdout, stderr } = await run(['run', 'shop', 'items.list']);
    expect(code).toBe(4);
    expect(stdout).toBe('');
    expect(printedError(stderr)).toMatchObject({
      code: 'authentication_failed',
      requestId: `req-${REDACTED}`,
      message: `GET /items: token ${REDACTED} is revoked`,
    });
    expect(stderr).not.toContain(TOKEN);
    expect(stderr).not.toContain(Buffer.from(TOKEN).toString('hex'));
  });
});
