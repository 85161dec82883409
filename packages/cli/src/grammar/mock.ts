import type { CommandSpec } from './command-spec.js';
import { CONNECTOR_PACKAGE } from './common-options.js';

export const MOCK: CommandSpec = {
  name: 'mock',
  summary: 'serve a local stand-in for an API from its OpenAPI document',
  description:
    "Serve the API an OpenAPI 3.0 or 3.1 document (JSON or YAML) describes on 127.0.0.1, until interrupted, to record fixtures against before there are credentials: each operation answers its first success response's example, or a sample of its schema, after checking the request (path, method, the credential a secured operation needs, required parameters, the JSON body against its schema; a refusal names the field). A list operation that pages (a cursor, offset or page parameter, a next cursor, next URL or Link header in its answer) serves --records records made from its schema, up to the start of the day (UTC), oldest first (or as its sort direction parameter says), page by page the way the document says, and honours its newer-than and older-than filters; with --grow K, each read of a list after its first finds K newer records, for an incremental second run. The base URL is the address plus the path of the document's first server. When the connector (--connector, or this folder's package) signs in with OAuth2, it also serves a stand-in authorization server at <address>/oauth: /oauth/authorize (PKCE S256 and state required; consent is automatic, the redirect comes back at once with the code; the redirect URI must be on a loopback address) and /oauth/token (authorization code, refresh and client credentials grants; refresh tokens rotate and a reused one is refused with invalid_grant and revokes the grant; a wrong verifier, code or redirect URI is invalid_grant, a wrong client invalid_client). The client is --client-id, public unless PLUGBOARD_CLIENT_SECRET is set (client credentials need it). The API then refuses a bearer token the stand-in did not issue, or that expired, with 401. Point a connection at it with plugboard auth login <connector> --auth-base-url <address>/oauth; a client credentials connection, which has no sign-in, with --auth-base-url <address>/oauth on run, record, options or check, the client and secret in PLUGBOARD_CREDENTIAL.",
  arguments: [{ name: '<openapi-file>', description: 'the OpenAPI document' }],
  options: [
    { flags: '--port <n>', description: 'the port (0: a free one)', default: '0' },
    { flags: '--host <address>', description: 'the address to listen on', default: '127.0.0.1' },
    { flags: '--records <n>', description: 'records each paged list operation serves', default: '250' },
    {
      flags: '--grow <k>',
      description: 'records each paged list adds, newer than all, before each read after its first',
      default: '0',
    },
    {
      flags: '--seed <text>',
      description: 'what the records are made from: the same seed, the same records',
      default: '1',
    },
    CONNECTOR_PACKAGE,
    { flags: '--client-id <id>', description: 'the OAuth2 client the stand-in knows (default: plugboard-mock)' },
    { flags: '--token-lifetime <seconds>', description: "the stand-in's access token lifetime (default: 3600)" },
    {
      flags: '--token-fault <kind>',
      description:
        'make the token endpoint fail: invalid_grant (code exchanges and refreshes refused), 5xx (503 to every token request), slow (each token answer held 15 s)',
      choices: ['invalid_grant', '5xx', 'slow'],
    },
  ],
  examples: [
    'plugboard mock openapi.yaml --port 4010',
    'plugboard mock openapi.yaml --port 4010 --records 250 --grow 5',
    'plugboard mock openapi.yaml --port 4010 --connector . --token-lifetime 60',
    'PLUGBOARD_CLIENT_ID=plugboard-mock plugboard auth login acme --auth-base-url http://127.0.0.1:4010/oauth',
    'PLUGBOARD_CREDENTIAL=test-token plugboard record items.list --scenario items-full --base-url http://127.0.0.1:4010/v1',
  ],
  load: async () => (await import('../commands/mock.js')).mockCommand,
};
