import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ManualClock, manualClock } from '../src/clock.js';
import { type ConnectorError, readAll, type TokenSet, type Transport } from '../src/index.js';
import { type CredentialStore, memoryCredentialStore } from '../src/tokens.js';
import { connectionTokenSource, createExecutor, prepareRun, Redactor } from '../src/host.js';
import { type OAuthRig, startOAuthRig } from './support/oauth.js';
import { rigConnector, rigTransport, signedIn } from './support/oauth-connector.js';

/**
 * A connection's `authBaseUrl` points its OAuth2 endpoints at a stand-in authorization server:
 * every path that refreshes (a run, the executor, a host keeping a plugin's token lifecycle)
 * sends its token requests there, and none to the token URL the connector declares.
 */

let clock: ManualClock;
let rig: OAuthRig;
let store: CredentialStore;
let transport: Transport;
/** The token URL the connector declares: the provider's own, which must see nothing. */
let provider: Server;
let providerHits: number;

beforeEach(async () => {
  clock = manualClock();
  rig = await startOAuthRig({ clock, accessTokenTtl: 600 });
  store = memoryCredentialStore();
  transport = rigTransport(clock, { store });
  providerHits = 0;
  provider = createServer((_request, response) => {
    providerHits += 1;
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await transport.close();
  await rig.stop();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
});

/** The rig's connector, its declared endpoints on the provider's address instead of the rig's. */
function declaredElsewhere() {
  const origin = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  return rigConnector(rig, 'code', { tokenUrl: `${origin}/oauth/token`, authorizeUrl: `${origin}/oauth/authorize` });
}

async function expiredSet(): Promise<TokenSet> {
  const tokens = await signedIn(rig, clock.now());
  await clock.advance(601_000);
  return tokens;
}

const native = () => rig.auth.clients.native.clientId;

describe('authBaseUrl', () => {
  it('a run refreshes against the stand-in, never the declared token URL', async () => {
    const connector = declaredElsewhere();
    const tokens = await expiredSet();
    const read = await readAll(connector, 'me.get', {
      input: {},
      connection: { id: 'conn-1', baseUrl: rig.api.url, authBaseUrl: rig.auth.issuer },
      credential: () => ({ clientId: native(), tokens }),
      transport,
      retry: { retries: 0 },
    });
    expect(read.records).toHaveLength(1);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(providerHits).toBe(0);
    expect((await store.read('conn-1'))?.tokens.refreshToken).not.toBe(tokens.refreshToken);
  });

  it('the executor takes it from the host connection', async () => {
    const connector = declaredElsewhere();
    const tokens = await expiredSet();
    const executor = createExecutor({
      connectors: [connector],
      resolveConnection: (id) => ({ id, baseUrl: rig.api.url, authBaseUrl: rig.auth.issuer }),
      resolveCredential: () => ({ clientId: native(), tokens }),
      transport,
      clock,
      retry: { retries: 0 },
      log: () => undefined,
    });
    const records: unknown[] = [];
    await executor.execute({
      connectorKey: 'rigged',
      action: 'me.get',
      connectionId: 'conn-1',
      stream: 's',
      onPage: (page) => void records.push(...page.records),
    });
    expect(records).toHaveLength(1);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(providerHits).toBe(0);
  });

  it("a host keeping a plugin's token lifecycle refreshes against it", async () => {
    const connector = declaredElsewhere();
    const tokens = await expiredSet();
    const source = connectionTokenSource({
      connector: 'rigged',
      scheme: connector.auth[0]!,
      authBaseUrl: rig.auth.issuer,
      connectionId: 'conn-1',
      environment: 'sandbox',
      credential: { clientId: native(), tokens },
      transport,
      redactor: new Redactor(),
      log: () => undefined,
    });
    const current = await source.current();
    expect(current.refreshToken).not.toBe(tokens.refreshToken);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(providerHits).toBe(0);
  });

  it('is refused in production and when it is not a loopback http or https URL, before any request', () => {
    const connector = declaredElsewhere();
    const prepare = (authBaseUrl: string, environment: 'sandbox' | 'production') => {
      try {
        prepareRun(connector, 'me.get', {
          input: {},
          connection: { id: 'conn-1', baseUrl: rig.api.url, authBaseUrl },
          environment,
        });
        return 'prepared';
      } catch (error) {
        return `${(error as ConnectorError).code}: ${(error as Error).message}`;
      }
    };
    expect(prepare(rig.auth.issuer, 'production')).toMatch(/^invalid_connection: .*authBaseUrl.*sandbox only/);
    expect(prepare('http://auth.example.com/oauth', 'sandbox')).toMatch(
      /^invalid_connection: .*authBaseUrl must be https/,
    );
    expect(prepare('not a url', 'sandbox')).toMatch(/^invalid_connection: .*authBaseUrl must be an absolute URL/);
    expect(prepare(rig.auth.issuer, 'sandbox')).toBe('prepared');
    expect(providerHits + rig.auth.counts.token.refresh_token).toBe(0);
  });
});
