import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerToken, createTransport, defineAction, defineConnector } from '@plugboard/sdk';
import { REDACTED } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineScenario, recordScenario, replayScenario } from '../src/index.js';

/**
 * A provider that sends a header twice (two `Set-Cookie`, two `Link`): the fixture keeps both
 * values, in order, redacted as any cookie is, and replay sends both back. `Set-Cookie`, which
 * cannot be joined, stays a list of two.
 */

const TOKEN = 'repeated-headers-token-8d1f';
const SESSION = 'session-value-5c2e9a71';

const Session = z
  .object({ id: z.string(), jar: z.array(z.string()), links: z.string().nullable() })
  .meta({ id: 'RepeatedHeadersSession' });

const connector = defineConnector({
  key: 'repeated',
  name: 'Repeated headers',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Reads an answer whose headers repeat.',
  auth: bearerToken(),
  baseUrl: 'http://127.0.0.1:9',
  actions: [
    defineAction({
      key: 'session.get',
      label: 'Get the session',
      direction: 'source',
      entity: Session,
      input: z.object({}),
      async *read(ctx) {
        const answer = await ctx.http.request({ method: 'GET', path: '/session' });
        yield { records: [{ id: 's', jar: answer.headers.getSetCookie(), links: answer.headers.get('link') }] };
      },
    }),
  ],
});

const scenario = defineScenario({ name: 'session', action: 'session.get', input: {} });

let server: Server;
let origin: string;
const requests: IncomingMessage[] = [];
let dir: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push(request);
    // Raw header pairs: each repeated name goes out as separate header lines.
    response.writeHead(200, [
      'Content-Type',
      'application/json',
      'Set-Cookie',
      `session=${SESSION}; Path=/; HttpOnly`,
      'Link',
      `<${origin}/v1/help>; rel="help"`,
      'Set-Cookie',
      'theme=dark; Path=/',
      'Link',
      `<${origin}/v1/terms>; rel="terms-of-service"`,
    ]);
    response.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'plugboard-repeated-'));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe('a header the provider sends twice', () => {
  it('is kept twice in the fixture, redacted, and comes back twice on replay', async () => {
    const transport = createTransport({ via: 'fetch' });
    let recorded: Awaited<ReturnType<typeof recordScenario>>;
    try {
      recorded = await recordScenario({
        connector,
        scenario,
        fixturesDir: dir,
        baseUrl: `${origin}/v1`,
        credential: TOKEN,
        transport,
      });
    } finally {
      await transport.close();
    }
    expect(requests).toHaveLength(1);
    const headers = recorded.fixture.calls[0]!.response.headers;
    expect(headers?.['set-cookie']).toEqual([`session=${REDACTED}; Path=/; HttpOnly`, `theme=${REDACTED}; Path=/`]);
    // fetch gives a repeated list header as one, its values joined (RFC 9110 5.3: the same header); both stay.
    expect(headers?.link).toBe(
      '<http://provider.test/v1/help>; rel="help", <http://provider.test/v1/terms>; rel="terms-of-service"',
    );
    expect(recorded.text).not.toContain(SESSION);
    expect(recorded.text).not.toContain(TOKEN);

    const replayed = await replayScenario({ connector, scenario: 'session', fixturesDir: dir });
    expect(replayed.records).toEqual([
      {
        id: 's',
        jar: [`session=${REDACTED}; Path=/; HttpOnly`, `theme=${REDACTED}; Path=/`],
        links: '<http://provider.test/v1/help>; rel="help", <http://provider.test/v1/terms>; rel="terms-of-service"',
      },
    ]);
  });
});
