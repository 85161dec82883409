import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AddressRefusedError,
  classifyAddress,
  createTransport,
  type Environment,
  NetworkError,
  readAll,
  type Transport,
  type TransportOptions,
} from '../src/index.js';
import { addressRefusal } from '../src/http/network-policy.js';
import { partsOf, type TransportParts } from '../src/http/transport.js';
import { isAddressRange } from '../src/host.js';
import { example } from './support/connector.js';
import { fastRetry, useHarness } from './support/harness.js';
import { tableLookup } from './support/resolver.js';
import { json, startServer, type TestServer } from './support/server.js';

/**
 * The transport's network policy. Every test reaches 127.0.0.1 only: names resolve through a
 * table (never a DNS server), and a refused address is never connected to, which the error's
 * code shows (nothing listens at 169.254.169.254 here: a connection would fail otherwise).
 */

const h = useHarness();
const item = { id: 'a', name: 'A', updated_at: '2026-11-01T00:00:00Z' };
const CREDENTIAL = 'test-credential-1234';

const opened: Array<Transport | TestServer | Server> = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) {
    if ('close' in thing && 'budgets' in thing) await thing.close();
    else if ('requests' in thing) await thing.close();
    else await new Promise<void>((resolve) => (thing as Server).close(() => resolve()));
  }
});

function transport(options: TransportOptions): TransportParts {
  const made = partsOf(createTransport(options));
  opened.push(made);
  return made;
}

async function server(
  handler: Parameters<typeof startServer>[0] = (req, res) => json(res, 200, item),
): Promise<TestServer> {
  const started = await startServer(handler);
  opened.push(started);
  return started;
}

/** A bare TCP listener on 127.0.0.1 that counts connections: a refused request must open none. */
async function listener(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const tcp = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  opened.push(tcp);
  return { port: (tcp.address() as AddressInfo).port, connections: () => connections };
}

function read(baseUrl: string, environment: Environment, via: Transport) {
  return readAll(
    example,
    'items.get',
    h.options({ input: { id: 'a' }, environment, connection: { baseUrl }, transport: via, retry: fastRetry(2) }),
  );
}

async function refused(run: Promise<unknown>): Promise<AddressRefusedError> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AddressRefusedError);
  return error as AddressRefusedError;
}

const VIAS = ['undici', 'fetch', 'http'] as const;

describe('the address classifier', () => {
  it.each([
    ['127.0.0.1', 'loopback', undefined],
    ['127.9.9.9', 'loopback', undefined],
    ['::1', 'loopback', undefined],
    ['10.1.2.3', 'private', undefined],
    ['172.16.0.1', 'private', undefined],
    ['192.168.1.20', 'private', undefined],
    ['100.64.0.1', 'private', undefined],
    ['fec0::1', 'private', undefined],
    ['169.254.1.1', 'link-local', undefined],
    ['fe80::1', 'link-local', undefined],
    ['fd12:3456::1', 'unique-local', undefined],
    ['fc00::1', 'unique-local', undefined],
    ['169.254.169.254', 'metadata', undefined],
    ['169.254.170.2', 'metadata', undefined],
    ['100.100.100.200', 'metadata', undefined],
    ['fd00:ec2::254', 'metadata', undefined],
    ['fd20:ce::254', 'metadata', undefined],
    ['2852039166', 'metadata', undefined],
    ['0xA9FEA9FE', 'metadata', undefined],
    ['0.0.0.0', 'unspecified', undefined],
    ['::', 'unspecified', undefined],
    ['255.255.255.255', 'broadcast', undefined],
    ['224.0.0.1', 'multicast', undefined],
    ['ff02::1', 'multicast', undefined],
    ['240.0.0.1', 'reserved', undefined],
    ['192.0.2.1', 'reserved', undefined],
    ['2001:db8::1', 'reserved', undefined],
    ['100::1', 'reserved', undefined],
    ['64:ff9b:1::a9fe:a9fe', 'private', undefined],
    ['::ffff:169.254.169.254', 'metadata', 'ipv4-mapped'],
    ['[::ffff:a9fe:a9fe]', 'metadata', 'ipv4-mapped'],
    ['::ffff:127.0.0.1', 'loopback', 'ipv4-mapped'],
    ['::ffff:0:a9fe:a9fe', 'metadata', 'ipv4-translated'],
    ['::7f00:1', 'loopback', 'ipv4-compatible'],
    ['::808:808', 'reserved', 'ipv4-compatible'],
    ['64:ff9b::a9fe:a9fe', 'metadata', 'nat64'],
    ['64:ff9b::169.254.169.254', 'metadata', 'nat64'],
    ['64:ff9b::a00:1', 'private', 'nat64'],
    ['64:ff9b::7f00:1', 'loopback', 'nat64'],
    ['2002:a9fe:a9fe::', 'metadata', '6to4'],
    ['2002:a9fe:a9fe:1::5', 'metadata', '6to4'],
    ['2002:c0a8:101::1', 'private', '6to4'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'teredo'],
    ['8.8.8.8', 'public', undefined],
    ['2606:4700:4700::1111', 'public', undefined],
    ['64:ff9b::808:808', 'public', 'nat64'],
    ['2002:808:808::1', 'public', '6to4'],
    ['::ffff:8.8.8.8', 'public', 'ipv4-mapped'],
  ])('%s is %s (%s)', (address, kind, embedding) => {
    expect(classifyAddress(address)).toEqual(embedding ? { class: kind, embedding } : { class: kind });
  });

  it('is not asked about names', () => {
    expect(classifyAddress('metadata.google.internal')).toBeUndefined();
    expect(addressRefusal('localhost', 'production')).toBeUndefined();
  });
});

describe('the policy of an environment', () => {
  const productionRefuses = [
    '127.0.0.1',
    '::1',
    '::ffff:127.0.0.1',
    '10.0.0.1',
    '100.64.0.1',
    '169.254.1.1',
    'fe80::1',
    'fd00::1',
    '169.254.169.254',
    'fd00:ec2::254',
    '0.0.0.0',
    '::',
    '255.255.255.255',
    '224.0.0.1',
    '240.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::',
    '::ffff:169.254.169.254',
  ];

  it.each(productionRefuses)('production refuses %s', (address) => {
    expect(addressRefusal(address, 'production')).toMatchObject({
      class: expect.any(String),
      reason: expect.any(String),
    });
  });

  it('sandbox refuses the same but the loopback of this machine', () => {
    for (const address of productionRefuses) {
      const local = ['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(address);
      expect(addressRefusal(address, 'sandbox'), address).toEqual(
        local ? undefined : expect.objectContaining({ class: expect.any(String) }),
      );
    }
    // Loopback through NAT64, 6to4 or Teredo is the loopback of another machine.
    expect(addressRefusal('64:ff9b::7f00:1', 'sandbox')).toMatchObject({ class: 'loopback', embedding: 'nat64' });
    expect(addressRefusal('2002:7f00:1::', 'sandbox')).toMatchObject({ class: 'loopback', embedding: '6to4' });
  });

  it('lets public addresses through', () => {
    for (const address of ['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '64:ff9b::808:808']) {
      expect(addressRefusal(address, 'production'), address).toBeUndefined();
    }
  });

  it('lets an allowed range through, also carried in an IPv6 address, and nothing else', () => {
    const allow = ['10.0.0.0/8', 'fd00:ec2::/32', '192.168.1.20'];
    expect(addressRefusal('10.1.2.3', 'production', allow)).toBeUndefined();
    expect(addressRefusal('::ffff:10.1.2.3', 'production', allow)).toBeUndefined();
    expect(addressRefusal('64:ff9b::a01:203', 'production', allow)).toBeUndefined();
    expect(addressRefusal('fd00:ec2::254', 'production', allow)).toBeUndefined();
    expect(addressRefusal('192.168.1.20', 'production', allow)).toBeUndefined();
    expect(addressRefusal('192.168.1.21', 'production', allow)).toMatchObject({ class: 'private' });
    expect(addressRefusal('172.16.0.1', 'production', allow)).toMatchObject({ class: 'private' });
    expect(addressRefusal('169.254.169.254', 'production', allow)).toMatchObject({
      class: 'metadata',
      reason: 'a cloud metadata address',
    });
  });

  it('names the reason, with the form that carried the address', () => {
    expect(addressRefusal('64:ff9b::a9fe:a9fe', 'production')?.reason).toBe(
      'a cloud metadata address inside a NAT64 address (64:ff9b::/96)',
    );
    expect(addressRefusal('2002:a9fe:a9fe::', 'production')?.reason).toBe(
      'a cloud metadata address inside a 6to4 address (2002::/16)',
    );
  });

  it('takes CIDR ranges and single addresses, and refuses anything else when the transport is made', () => {
    for (const range of ['10.0.0.0/8', '127.0.0.0/8', '192.168.1.20', 'fd00::/8', '::1', '::ffff:0:0/96'])
      expect(isAddressRange(range), range).toBe(true);
    for (const range of [
      '10.0.0.0/33',
      '10/8',
      '0xA9FEA9FE',
      'example.com',
      '',
      'fd00::/129',
      '10.0.0.0/8,127.0.0.0/8',
    ]) {
      expect(isAddressRange(range), range).toBe(false);
      expect(() => createTransport({ network: { allow: [range] } }), range).toThrow(TypeError);
    }
  });
});

describe.each(VIAS)('a base URL the policy refuses, via %s', (via) => {
  it.each([
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254', 'metadata', undefined],
    ['http://2852039166/latest/meta-data', '169.254.169.254', 'metadata', undefined],
    ['http://0xA9FEA9FE/latest', '169.254.169.254', 'metadata', undefined],
    ['http://0251.0376.0251.0376/latest', '169.254.169.254', 'metadata', undefined],
    ['http://169.254.43518/latest', '169.254.169.254', 'metadata', undefined],
    ['https://[fd00:ec2::254]/latest', '[fd00:ec2::254]', 'metadata', undefined],
    ['http://[64:ff9b::a9fe:a9fe]/latest', '[64:ff9b::a9fe:a9fe]', 'metadata', 'nat64'],
    ['http://[64:ff9b::169.254.169.254]/latest', '[64:ff9b::a9fe:a9fe]', 'metadata', 'nat64'],
    ['http://[2002:a9fe:a9fe::]/latest', '[2002:a9fe:a9fe::]', 'metadata', '6to4'],
    ['http://[::ffff:169.254.169.254]/latest', '[::ffff:a9fe:a9fe]', 'metadata', 'ipv4-mapped'],
    ['http://10.0.0.1/v1', '10.0.0.1', 'private', undefined],
    ['https://192.168.1.20/v1', '192.168.1.20', 'private', undefined],
    ['http://100.64.0.1/v1', '100.64.0.1', 'private', undefined],
    ['http://169.254.1.1/v1', '169.254.1.1', 'link-local', undefined],
    ['http://[fe80::1]/v1', '[fe80::1]', 'link-local', undefined],
    ['http://[fd12:3456::1]/v1', '[fd12:3456::1]', 'unique-local', undefined],
    ['http://0.0.0.0/v1', '0.0.0.0', 'unspecified', undefined],
    ['http://[::]/v1', '[::]', 'unspecified', undefined],
    ['http://0x7f.1/v1', '127.0.0.1', 'loopback', undefined],
    ['http://[::1]/v1', '[::1]', 'loopback', undefined],
  ])('in production: %s', async (baseUrl, host, kind, embedding) => {
    const error = await refused(read(baseUrl, 'production', transport({ via })));
    expect(error).toMatchObject({ code: 'address_refused', retryable: false, addressClass: kind, embedding });
    expect(error.message).toContain(`the host ${host} is a`);
    // The host, never the path, the query or the credential.
    expect(error.message).not.toMatch(/latest|meta-data|\/v1/);
    expect(error.toPlatformError('/x')).toMatchObject({
      error: 'request_failed',
      statusCode: 403,
      code: 'address_refused',
    });
    expect(h.logs.filter((entry) => entry.message.includes('retrying'))).toEqual([]);
  });

  it('in production: the loopback test server itself, which sees no connection', async () => {
    const tcp = await listener();
    const sending = transport({ via });
    // Twice: the second time from the verdict the policy kept on the literal.
    for (let run = 0; run < 2; run += 1)
      expect((await refused(read(`http://127.0.0.1:${tcp.port}/v1`, 'production', sending))).addressClass).toBe(
        'loopback',
      );
    expect(tcp.connections()).toBe(0);
    // The same literal in the sandbox, on the same transport, is let through to the listener.
    await read(`http://127.0.0.1:${tcp.port}/v1`, 'sandbox', sending).catch(() => undefined);
    expect(tcp.connections()).toBeGreaterThan(0);
    const before = tcp.connections();
    await refused(read(`http://127.0.0.1:${tcp.port}/v1`, 'production', sending));
    expect(tcp.connections()).toBe(before);
  });

  it('in the sandbox the metadata address and private ranges too; loopback goes through', async () => {
    for (const baseUrl of ['http://169.254.169.254/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://10.0.0.1/']) {
      expect((await refused(read(baseUrl, 'sandbox', transport({ via })))).code).toBe('address_refused');
    }
    const local = await server();
    expect((await read(local.url, 'sandbox', transport({ via }))).records).toEqual([item]);
  });
});

describe.each(VIAS)('a name that does not resolve, via %s', (via) => {
  it('fails at once as host_not_found, naming the host, without a retry', async () => {
    const lookup = tableLookup({});
    const error = await read('http://api.nowhere.invalid/v1', 'sandbox', transport({ via, network: { lookup } })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'host_not_found', retryable: false });
    expect((error as NetworkError).message).toBe(
      'GET /v1/items/a: the host api.nowhere.invalid does not resolve (ENOTFOUND)',
    );
    // The reads of this test retry twice on a transient failure: this one is asked once.
    expect(lookup.asked.filter((name) => name === 'api.nowhere.invalid')).toHaveLength(1);
  });
});

describe.each(VIAS)('names, checked on the addresses they resolve to, via %s', (via) => {
  it('a name resolving to loopback: refused in production before any connection, allowed in the sandbox', async () => {
    const local = await server();
    const port = new URL(local.url).port;
    const lookup = tableLookup({ 'api.test': '127.0.0.1' });
    const sending = transport({ via, network: { lookup } });
    const error = await refused(read(`http://api.test:${port}/v1`, 'production', sending));
    expect(error).toMatchObject({ code: 'address_refused', addressClass: 'loopback' });
    expect(error.message).toMatch(
      /^the host api\.test resolves to a loopback address, which production runs may not connect to/,
    );
    expect(error.message).not.toContain('127.0.0.1');
    // The credential never went anywhere: the server saw nothing.
    expect(local.requests).toHaveLength(0);
    expect(lookup.asked).toContain('api.test');

    expect((await read(`http://api.test:${port}/v1`, 'sandbox', sending)).records).toEqual([item]);
    expect(local.requests.map((request) => [request.headers.host, request.headers.authorization])).toEqual([
      [`api.test:${port}`, `Bearer ${CREDENTIAL}`],
    ]);
  });

  it('a connection kept alive for a sandbox run never carries a production run to the same origin', async () => {
    const local = await server();
    const port = new URL(local.url).port;
    const sending = transport({ via, network: { lookup: tableLookup({ 'api.test': '127.0.0.1' }) } });
    await read(`http://api.test:${port}/v1`, 'sandbox', sending);
    await read(`http://api.test:${port}/v1`, 'sandbox', sending);
    await refused(read(`http://api.test:${port}/v1`, 'production', sending));
    expect(local.requests).toHaveLength(2);
  });

  it('a name resolving to the metadata address is refused in both environments, and nothing is connected to', async () => {
    for (const environment of ['production', 'sandbox'] as const) {
      const error = await refused(
        read(
          'http://metadata.test/latest/meta-data/iam',
          environment,
          transport({ via, network: { lookup: tableLookup({ 'metadata.test': '169.254.169.254' }) } }),
        ),
      );
      expect(error).toMatchObject({ code: 'address_refused', addressClass: 'metadata' });
      expect(error.message).toContain('the host metadata.test resolves to a cloud metadata address');
      expect(error.message).not.toMatch(/169\.254|meta-data|iam/);
    }
  });

  it('a name resolving to a NAT64 or 6to4 form of the metadata address is refused', async () => {
    const lookup = tableLookup({ 'nat64.test': '64:ff9b::a9fe:a9fe', 'sixtofour.test': '2002:a9fe:a9fe::1' });
    const sending = transport({ via, network: { lookup } });
    expect(await refused(read('http://nat64.test/', 'sandbox', sending))).toMatchObject({
      addressClass: 'metadata',
      embedding: 'nat64',
    });
    expect(await refused(read('http://sixtofour.test/', 'sandbox', sending))).toMatchObject({
      addressClass: 'metadata',
      embedding: '6to4',
    });
  });

  it('of the addresses a name resolves to, only those the policy lets through are connected to', async () => {
    const local = await server();
    const port = new URL(local.url).port;
    const sending = transport({
      via,
      network: { lookup: tableLookup({ 'mixed.test': ['169.254.169.254', '127.0.0.1'] }) },
    });
    expect((await read(`http://mixed.test:${port}/v1`, 'sandbox', sending)).records).toEqual([item]);
    expect(local.requests).toHaveLength(1);
  });

  it('in production, a name resolving to 127.0.0.1 goes through when the host allows loopback', async () => {
    const local = await server();
    const sending = transport({
      via,
      network: { allow: ['127.0.0.0/8'], lookup: tableLookup({ 'api.test': '127.0.0.1' }) },
    });
    expect((await read(`http://api.test:${new URL(local.url).port}/v1`, 'production', sending)).records).toEqual([
      item,
    ]);
    expect(local.requests).toHaveLength(1);
  });
});

/** Well-known metadata host names, spelt as a URL may carry them; the resolver would answer each with this machine. */
const METADATA_NAMES = [
  'metadata.google.internal',
  'METADATA.Google.Internal',
  'metadata.google.internal.',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'instance-data.us-west-2.compute.internal.',
];

describe.each(VIAS)('well-known cloud metadata host names, via %s', (via) => {
  it.each(METADATA_NAMES)(
    '%s is refused in both environments, whatever the host allows, before any lookup or connection',
    async (name) => {
      const { port, connections } = await listener();
      const bare = name.toLowerCase().replace(/\.$/, '');
      const lookup = tableLookup({ [bare]: '127.0.0.1', [`${bare}.`]: '127.0.0.1' });
      for (const environment of ['sandbox', 'production'] as const) {
        for (const allow of [[], ['127.0.0.0/8', '169.254.169.254/32']]) {
          const sending = transport({ via, network: { allow, lookup } });
          const error = await refused(read(`http://${name}:${port}/computeMetadata/v1/`, environment, sending));
          expect(error).toMatchObject({ code: 'address_refused', retryable: false, addressClass: 'metadata' });
          expect(error.message).toContain(`is a cloud metadata host name, which ${environment} runs may not`);
          expect(error.message).not.toMatch(/computeMetadata/);
        }
      }
      expect(lookup.asked).toEqual([]);
      expect(connections()).toBe(0);
    },
  );

  it('a name that only resembles one is resolved and checked on its addresses as before', async () => {
    const local = await server();
    const port = new URL(local.url).port;
    const lookup = tableLookup({
      'metadata.example.test': '127.0.0.1',
      'my-metadata.google.internal.test': '127.0.0.1',
    });
    const sending = transport({ via, network: { lookup } });
    await read(`http://metadata.example.test:${port}/v1`, 'sandbox', sending);
    await read(`http://my-metadata.google.internal.test:${port}/v1`, 'sandbox', sending);
    expect(local.requests).toHaveLength(2);
  });

  it('a redirect from the loopback server to one is refused at the hop, nothing looked up', async () => {
    const local = await server((req, res) => {
      res.writeHead(302, { location: 'http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/' });
      res.end();
    });
    const lookup = tableLookup({ 'metadata.google.internal': '127.0.0.1' });
    const error = await refused(read(local.url, 'sandbox', transport({ via, network: { lookup } })));
    expect(error).toMatchObject({ code: 'address_refused', addressClass: 'metadata' });
    expect(error.message).toContain('the host metadata.google.internal is a cloud metadata host name');
    expect(error.message).not.toMatch(/computeMetadata|service-accounts/);
    expect(local.requests).toHaveLength(1);
    expect(lookup.asked).toEqual([]);
  });
});

describe.each(VIAS)('redirects, checked at every hop, via %s', (via) => {
  const redirecting = (location: (hop: number) => string) =>
    server((req, res) => {
      res.writeHead(302, { location: location(0) });
      res.end();
    });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'metadata', undefined],
    ['http://2852039166/latest/meta-data/', 'metadata', undefined],
    ['http://[64:ff9b::a9fe:a9fe]/latest/meta-data/', 'metadata', 'nat64'],
    ['http://[2002:a9fe:a9fe::]/latest/meta-data/', 'metadata', '6to4'],
    ['http://metadata.test/latest/meta-data/', 'metadata', undefined],
    ['http://intranet.test/admin', 'private', undefined],
  ])(
    'a sandbox run redirected from the loopback server to %s is refused at the hop',
    async (location, kind, embedding) => {
      const local = await redirecting(() => location);
      const sending = transport({
        via,
        network: { lookup: tableLookup({ 'metadata.test': '169.254.169.254', 'intranet.test': '10.0.0.8' }) },
      });
      const error = await refused(read(local.url, 'sandbox', sending));
      expect(error).toMatchObject({ code: 'address_refused', addressClass: kind, embedding });
      expect(error.message).not.toMatch(/meta-data|admin/);
      expect(local.requests).toHaveLength(1);
    },
  );

  it('in production with loopback allowed, a redirect to another loopback name is followed, without the credential', async () => {
    const other = await server();
    const first = await redirecting(() => `http://hop.test:${new URL(other.url).port}/elsewhere`);
    const lookup = tableLookup({ 'api.test': '127.0.0.1', 'hop.test': '127.0.0.1' });
    const sending = transport({ via, network: { allow: ['127.0.0.0/8'], lookup } });
    expect((await read(`http://api.test:${new URL(first.url).port}/v1`, 'production', sending)).records).toEqual([
      item,
    ]);
    expect(first.requests[0]!.headers.authorization).toBe(`Bearer ${CREDENTIAL}`);
    expect(other.requests).toHaveLength(1);
    expect(JSON.stringify(other.requests[0]!.headers)).not.toContain(CREDENTIAL);
    expect(lookup.asked).toEqual(expect.arrayContaining(['api.test', 'hop.test']));
  });

  it('in production with loopback allowed, a redirect to the metadata address is still refused', async () => {
    const first = await redirecting(() => 'http://169.254.169.254/latest/meta-data/');
    const sending = transport({
      via,
      network: { allow: ['127.0.0.0/8'], lookup: tableLookup({ 'api.test': '127.0.0.1' }) },
    });
    expect(await refused(read(`http://api.test:${new URL(first.url).port}/v1`, 'production', sending))).toMatchObject({
      addressClass: 'metadata',
    });
    expect(first.requests).toHaveLength(1);
  });
});

describe('the lookup of an environment', () => {
  const ask = (lookup: ReturnType<TransportParts['network']['lookup']>, name: string, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family: number | undefined }>((resolve) =>
      lookup(name, { all }, (error, address, family) => resolve({ error, address, family })),
    );

  it('answers a private address only when the host allows its range, without connecting to it', async () => {
    const lookup = tableLookup({ 'intranet.test': '10.0.0.5' });
    const allowed = transport({ network: { allow: ['10.0.0.0/8'], lookup } }).network.lookup('production');
    expect(await ask(allowed, 'intranet.test', true)).toMatchObject({
      error: null,
      address: [{ address: '10.0.0.5', family: 4 }],
    });
    expect(await ask(allowed, 'intranet.test', false)).toMatchObject({ error: null, address: '10.0.0.5', family: 4 });
    const closed = await ask(transport({ network: { lookup } }).network.lookup('production'), 'intranet.test', false);
    expect(closed.error).toBeInstanceOf(AddressRefusedError);
    expect(closed.error).toMatchObject({ addressClass: 'private' });
  });

  it('refuses a well-known metadata host name without asking the resolver', async () => {
    const lookup = tableLookup({ 'metadata.google.internal': '127.0.0.1', 'instance-data': '127.0.0.1' });
    const sending = transport({ network: { allow: ['127.0.0.0/8'], lookup } });
    for (const name of ['metadata.google.internal', 'Instance-Data.']) {
      for (const all of [true, false]) {
        const { error } = await ask(sending.network.lookup('sandbox'), name, all);
        expect(error).toBeInstanceOf(AddressRefusedError);
        expect(error).toMatchObject({ addressClass: 'metadata' });
      }
    }
    expect(lookup.asked).toEqual([]);
  });

  it('passes a resolver failure on as it is', async () => {
    const { error } = await ask(
      transport({ network: { lookup: tableLookup({}) } }).network.lookup('sandbox'),
      'nowhere.test',
      true,
    );
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });
});
