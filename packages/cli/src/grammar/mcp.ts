import type { CommandSpec } from './command-spec.js';
import {
  AUTH_BASE_URL,
  BASE_URL,
  CONNECTION_ID,
  CONNECTION_SETTINGS,
  CONNECTOR_KEY,
  CONNECTOR_PACKAGE,
  environment,
  PLUGIN_FOLDER,
} from './common-options.js';

/** `plugboard mcp`: a connector's actions as MCP tools for AI agents. */
export const MCP: CommandSpec = {
  name: 'mcp',
  summary: "serve a connector's actions as MCP tools, over stdio or Streamable HTTP",
  description:
    'Serve one tool per action of the connector to an MCP client (an AI agent): each call runs through the executor on one connection, as plugboard run does (validation, budgets, approvals, idempotency keys, redaction). A source answers one page a call with a cursor for the next. With more actions than --max-tools, two tools instead: search_actions and call_action. stdio by default (the client starts this command); --http PORT serves stateless Streamable HTTP at /mcp and prints {"url"} as one JSON line. The credential comes from a signed-in connection or PLUGBOARD_CREDENTIAL.',
  usage: '[connector] [options]',
  arguments: [CONNECTOR_KEY],
  options: [
    CONNECTOR_PACKAGE,
    {
      ...PLUGIN_FOLDER,
      description: `${PLUGIN_FOLDER.description}: serve its connector of that key in a process of its own, as run --plugins runs it`,
    },
    BASE_URL,
    AUTH_BASE_URL,
    environment('where the calls count (production needs approvals for billable actions)'),
    CONNECTION_SETTINGS,
    CONNECTION_ID,
    {
      flags: '--state <dir>',
      description:
        "keep idempotency keys in this folder (in memory without it), and pending approvals (default: plugboard's state folder)",
    },
    {
      flags: '--postgres <url>',
      description:
        "keep pending approvals in the worker fleet's PostgreSQL, where every server process and plugboard approvals --postgres find them",
    },
    {
      flags: '--actions <keys>',
      description: 'serve only these actions, comma-separated (e.g. projects.list,status.get)',
    },
    {
      flags: '--max-tools <n>',
      description: 'the most tools listed one per action; past it, search_actions and call_action',
      default: '40',
    },
    { flags: '--http <port>', description: 'serve Streamable HTTP on this port (0: a free one) instead of stdio' },
    { flags: '--host <address>', description: 'the address --http listens on', default: '127.0.0.1' },
    {
      flags: '--authorization-server <issuer>',
      description:
        "with --http: take only JWT access tokens of this OAuth 2.1 authorization server for this server's URL; the caller is the token's subject",
    },
    {
      flags: '--resource <url>',
      description:
        "with --authorization-server: this server's public URL, the audience tokens must name (default: the URL it listens on)",
    },
    {
      flags: '--approval-client <id>',
      description:
        "with --authorization-server: serve the approval page at /approvals/ID, people signing in at the authorization server as this OAuth client (redirect URI <origin>/approvals/sign-in; a confidential client's secret in PLUGBOARD_APPROVAL_CLIENT_SECRET; the cookie key in PLUGBOARD_COOKIE_SECRET, 32 characters or more, shared by every process of a fleet)",
    },
    { flags: '--scopes <list>', description: 'with --authorization-server: scopes every call needs, comma-separated' },
    {
      flags: '--caller <name>',
      description: 'who calls over stdio: an approval must come from someone else',
      default: 'stdio',
    },
  ],
  examples: [
    'plugboard mcp descript --base-url http://127.0.0.1:4010 --caller alice',
    'plugboard mcp --connector ./my-connector --http 8080',
  ],
  load: async () => (await import('../commands/mcp.js')).mcpCommand,
};
