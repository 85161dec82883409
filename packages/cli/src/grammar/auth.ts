import type { CommandSpec } from './command-spec.js';
import {
  CONNECTION_ID,
  CONNECTION_OPTIONS,
  CONNECTOR_KEY_OF_FOLDER,
  OLD_CONNECTION_NAME,
  SIGNED_IN_STATE,
} from './common-options.js';

const LOGIN: CommandSpec = {
  name: 'login',
  summary: 'sign in with OAuth2 in a browser and keep the token set',
  description:
    "Run the OAuth2 authorization code flow with PKCE: a listener on 127.0.0.1 and a free port waits for the redirect (path /callback, register http://127.0.0.1/callback with the provider), the URL to open is printed (and opened in a browser when you are at a terminal, never in CI), the code that comes back with the request's state is exchanged, and the token set is kept in the state folder's credential store (folder 0700, files 0600). The client id comes from --client-id or PLUGBOARD_CLIENT_ID, a confidential client's secret from PLUGBOARD_CLIENT_SECRET only. --auth-base-url URL signs in at a stand-in authorization server instead of the connector's own endpoints (URL/authorize and URL/token, as plugboard mock prints them) and is kept with the connection (not a secret): run, record, options, check and a run --plugins refresh there too. Sandbox only: refused with --environment production.",
  arguments: [CONNECTOR_KEY_OF_FOLDER],
  options: [
    ...CONNECTION_OPTIONS,
    {
      flags: '--client-id <id>',
      description: 'the OAuth2 client the provider registered for you (default: PLUGBOARD_CLIENT_ID)',
    },
    { flags: '--scheme <id>', description: 'the sign-in scheme, when the connector has several' },
    {
      flags: '--auth-base-url <url>',
      description: "a stand-in authorization server's base URL (sandbox only), kept with the connection",
    },
  ],
  examples: [
    'plugboard auth login shop --client-id my-client',
    'PLUGBOARD_CLIENT_ID=my-client plugboard auth login shop --connection-id work --state ./state',
    'PLUGBOARD_CLIENT_ID=plugboard-mock plugboard auth login shop --auth-base-url http://127.0.0.1:4010/oauth',
  ],
  load: async () => (await import('../commands/auth-login.js')).authLoginCommand,
};

const STATUS: CommandSpec = {
  name: 'status',
  summary: 'list the connections signed in, their expiry and last check',
  description:
    'Each connection kept by auth login, as check, run and record find it (in --state DIR, then the default state folder; the folder is in the JSON as stateFolder, and said of one kept outside --state DIR): connector, connection, scheme, client id, the stand-in it signed in at (--auth-base-url), when the access token expires and the last check; never a token or a secret. JSON ({"connections": [...]}) with --json or when stdout is not a terminal.',
  options: [
    SIGNED_IN_STATE,
    { ...CONNECTION_ID, description: 'only the connections of this name' },
    OLD_CONNECTION_NAME,
    { flags: '--json', description: 'print the connections as JSON' },
  ],
  examples: [
    'plugboard auth status',
    'plugboard auth status --connection-id work',
    'plugboard auth status --json --state ./state',
  ],
  load: async () => (await import('../commands/auth-status.js')).authStatusCommand,
};

export const AUTH: CommandSpec = {
  name: 'auth',
  summary: 'sign in to a connection and see the connections signed in',
  description:
    'Sign in to an OAuth2 connection in a browser and keep its token set in the state folder (only its owner may read it), where run, record, options and check find and renew it (--connection-id NAME names it in each).',
  subcommands: [LOGIN, STATUS],
};
