import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { linkDependencies, recordAsReadmeSays, scaffoldFromOpenApi, startMock, tsc } from './scaffold-support.js';
import { bufferIo } from './support.js';

/**
 * The credential a scaffold asks for, from the security scheme the document's first security
 * requirement names (else the chosen operations' first): OAuth2's authorization code flow,
 * else its client credentials flow, its endpoints resolved against the document's first server
 * and its scopes those the chosen operations ask for; a bearer token, with a `TODO auth` comment
 * saying what the document declared, for OpenID Connect or an OAuth2 flow Plugboard does not take.
 */

const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
const get = (operationId: string, security?: unknown) => ({
  get: { operationId, responses: ok, ...(security ? { security } : {}) },
});

function provider(schemes: Record<string, unknown>, paths: Record<string, unknown>, security?: unknown) {
  return {
    openapi: '3.0.3',
    info: { title: 'Provider', version: '1' },
    servers: [{ url: 'https://api.provider.example/v2' }],
    ...(security ? { security } : {}),
    paths,
    components: { securitySchemes: schemes },
  };
}

/** The `TODO auth` comment of a connector's source, its lines joined. */
const todo = (index: string) => /\/\/ (TODO auth: [\s\S]*?)\n\s+auth:/.exec(index)?.[1]?.replace(/\n\s+\/\/ /g, ' ');

/** Scaffolds `operations` of the document; its src/index.ts and the package's folder. */
async function scaffold(document: unknown, operations: string[]) {
  const file = join(await mkdtemp(join(tmpdir(), 'plugboard-new-auth-')), 'provider.json');
  await writeFile(file, JSON.stringify(document));
  const dir = await scaffoldFromOpenApi('provider', file, operations);
  return { dir, index: await readFile(join(dir, 'src', 'index.ts'), 'utf8') };
}

const codeFlow = {
  type: 'oauth2',
  flows: {
    implicit: { authorizationUrl: 'https://id.provider.example/authorize', scopes: {} },
    authorizationCode: {
      authorizationUrl: 'https://id.provider.example/authorize',
      // Relative to the document's first server, as OpenAPI allows.
      tokenUrl: '/oauth2/token',
      scopes: { 'files:read': 'Read files', 'files:write': 'Write files', admin: 'Everything' },
    },
  },
};

describe("a scaffold's credential, from the document's security scheme", () => {
  it('OAuth2 authorization code: endpoints resolved against the server, the scopes the chosen operations ask for; it builds and the catalogue describes it', async () => {
    const document = provider(
      { Auth: codeFlow },
      {
        '/files': get('listFiles', [{ Auth: ['files:read'] }]),
        '/uploads': get('listUploads', [{ Auth: ['files:write', 'files:read'] }]),
        '/admin': get('getAdmin', [{ Auth: ['admin'] }]),
      },
      [{ Auth: [] }],
    );
    const { dir, index } = await scaffold(document, ['listFiles', 'listUploads']);
    expect(index).toContain(
      [
        '  auth: oauth2AuthorizationCode({',
        "    authorizeUrl: 'https://id.provider.example/authorize',",
        "    tokenUrl: 'https://api.provider.example/oauth2/token',",
        "    scopes: ['files:read', 'files:write'],",
        '  }),',
      ].join('\n'),
    );
    expect(index).toContain("import { oauth2AuthorizationCode, defineConnector } from '@plugboard/sdk';");
    // No credential to export: the README signs in once at the mock's stand-in authorization server.
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    expect(readme).not.toContain('PLUGBOARD_CREDENTIAL');
    expect(readme).toContain(
      '```sh\nPLUGBOARD_CLIENT_ID=plugboard-mock npx plugboard auth login --auth-base-url http://127.0.0.1:4010/oauth\nnpx plugboard record ',
    );
    expect(readme).toContain('the stand-in consents at once');

    await linkDependencies(dir);
    await tsc(dir, '-p', 'tsconfig.build.json');
    const written = bufferIo();
    expect(await runCli(['catalogue', '--out', 'catalogue'], { ...written.io, cwd: dir }), written.stderr()).toBe(0);
    const entry = JSON.parse(await readFile(join(dir, 'catalogue', 'connectors', 'provider.json'), 'utf8'));
    expect(JSON.stringify(entry)).toContain('"authorizeUrl":"https://id.provider.example/authorize"');
    expect(JSON.stringify(entry)).toContain('"tokenUrl":"https://api.provider.example/oauth2/token"');
  }, 60_000);

  it('OAuth2 client credentials from the first chosen operation when the document names no requirement; no scopes, none written', async () => {
    const clientCredentials = {
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: 'https://id.provider.example/token', scopes: {} } },
    };
    const document = provider({ Machine: clientCredentials }, { '/jobs': get('listJobs', [{ Machine: [] }]) });
    const { index } = await scaffold(document, ['listJobs']);
    expect(index).toContain("auth: oauth2ClientCredentials({ tokenUrl: 'https://id.provider.example/token' }),");
    expect(index).not.toContain('scopes');
  });

  it("OAuth2 client credentials: the README, followed as written, records at the mock's stand-in authorization server, and the suite passes", async () => {
    const machine = {
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: 'https://id.provider.example/token', scopes: {} } },
    };
    const document = provider({ Machine: machine }, { '/jobs': get('listJobs') }, [{ Machine: [] }]);
    const { dir } = await scaffold(document, ['listJobs']);
    await linkDependencies(dir);
    await tsc(dir, '-p', 'tsconfig.build.json');

    // The mock is started with the stand-in client's secret, and PLUGBOARD_CREDENTIAL gives the same.
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    const mockLine = /^PLUGBOARD_CLIENT_SECRET=(\S+) npx plugboard mock (\S+) --port 4010(.*)$/m.exec(readme);
    expect(mockLine, readme).not.toBeNull();
    const [, secret, file, options] = mockLine!;
    const credential = /^export PLUGBOARD_CREDENTIAL='(.+)'$/m.exec(readme)?.[1];
    expect(JSON.parse(credential!)).toEqual({ clientId: 'plugboard-mock', clientSecret: secret });
    expect(readme).toMatch(
      /^npx plugboard record jobs\.list .* --auth-base-url http:\/\/127\.0\.0\.1:4010\/oauth --base-url http:\/\/127\.0\.0\.1:4010\/v2$/m,
    );
    const mock = await startMock(dir, [file!, ...options!.split(' ').filter(Boolean)], {
      PLUGBOARD_CLIENT_SECRET: secret!,
    });
    try {
      const recorded = await recordAsReadmeSays(dir, 'http://127.0.0.1:4010/v2', mock.url, {
        PLUGBOARD_CREDENTIAL: credential!,
      });
      expect(recorded).toEqual(['jobs.list']);
    } finally {
      await mock.stop();
    }
    // The token came from the stand-in's client credentials grant, and the API took it.
    expect(mock.requests().split('\n').filter(Boolean)).toEqual([
      'POST /oauth/token 200 client_credentials',
      'GET /v2/jobs 200 listJobs',
    ]);
    const suite = bufferIo({ ...process.env, CI: 'true' });
    expect(await runCli(['test'], { ...suite.io, cwd: dir }), `${suite.stdout()}${suite.stderr()}`).toBe(0);
  }, 120_000);

  it('OpenID Connect, or OAuth2 with only an implicit or password flow: a bearer token, and a TODO auth saying what the document declared', async () => {
    const openId = provider(
      {
        Oidc: {
          type: 'openIdConnect',
          openIdConnectUrl: 'https://id.provider.example/.well-known/openid-configuration',
        },
      },
      { '/jobs': get('listJobs') },
      [{ Oidc: [] }],
    );
    const oidc = (await scaffold(openId, ['listJobs'])).index;
    expect(oidc).toContain('auth: bearerToken(),');
    expect(todo(oidc)).toBe(
      'TODO auth: the document declares OpenID Connect (scheme Oidc, at https://id.provider.example/.well-known/openid-configuration): declare oauth2AuthorizationCode of @plugboard/sdk with the authorization and token endpoints its discovery document names, or keep the bearer token if the provider also takes one.',
    );
    const implicit = provider(
      {
        Legacy: {
          type: 'oauth2',
          flows: {
            implicit: { authorizationUrl: 'https://id.provider.example/authorize', scopes: {} },
            password: { tokenUrl: 'https://id.provider.example/token', scopes: {} },
          },
        },
      },
      { '/jobs': get('listJobs') },
      [{ Legacy: [] }],
    );
    const legacy = (await scaffold(implicit, ['listJobs'])).index;
    expect(legacy).toContain('auth: bearerToken(),');
    expect(todo(legacy)).toBe(
      "TODO auth: the document's OAuth2 scheme Legacy has the implicit, password flows and no authorization code or client credentials flow with https endpoints (resolved against the first server): declare oauth2AuthorizationCode or oauth2ClientCredentials of @plugboard/sdk with the provider's endpoints, or keep the bearer token if it also takes one.",
    );
  });
});
