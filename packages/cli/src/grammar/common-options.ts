import type { ArgumentSpec, OptionSpec } from './command-spec.js';

/** Arguments and options several commands take, said the same way in each one's help. */

export const CONNECTOR_KEY: ArgumentSpec = {
  name: '[connector]',
  description: 'the connector key (default: the connector package of this folder, or --connector)',
};

/** The same argument as the commands that read a connection say it. */
export const CONNECTOR_KEY_OF_FOLDER: ArgumentSpec = {
  name: '[connector]',
  description: "the connector key (default: this folder's connector package, or --connector)",
};

export const CONNECTOR_PACKAGE: OptionSpec = {
  flags: '--connector <dir|package>',
  description: "the connector package: a folder, or an installed package name (default: this folder's package)",
};

export const PLUGIN_FOLDER: OptionSpec = {
  flags: '--plugins <dir>',
  description: 'a folder npm or pnpm installed connector packages into',
};

export const BASE_URL: OptionSpec = {
  flags: '--base-url <url>',
  description: "the provider's base URL for this connection (a local stand-in, a simulator)",
};

export const CONNECTION_SETTINGS: OptionSpec = {
  flags: '--connection <json>',
  description: 'connection settings, a JSON object (no secrets: those come from PLUGBOARD_CREDENTIAL)',
};

/** A stand-in authorization server for a connection no one signed in to (`auth login` has its own). */
export const AUTH_BASE_URL: OptionSpec = {
  flags: '--auth-base-url <url>',
  description:
    "take the connection's OAuth2 tokens from a stand-in authorization server (URL/token, as plugboard mock prints it) instead of the connector's token URL, the client from PLUGBOARD_CREDENTIAL; sandbox only; a signed-in connection takes only the URL it signed in at",
};

/** The connection, named the same way by every command that signs in to, checks or runs on one. */
export const CONNECTION_ID: OptionSpec = {
  flags: '--connection-id <name>',
  description:
    'the connection (default: default): one signed in with auth login uses its kept token set, any other PLUGBOARD_CREDENTIAL',
};

/** `--connection NAME`, the old spelling of `--connection-id NAME` where `--connection` never meant settings. */
export const OLD_CONNECTION_NAME: OptionSpec = {
  flags: '--connection <name>',
  description: 'the old spelling of --connection-id (still taken; says so on stderr)',
};

export const SIGNED_IN_STATE: OptionSpec = {
  flags: '--state <dir>',
  description:
    'where signed-in connections are kept (default: PLUGBOARD_STATE, else XDG_STATE_HOME, else HOME); check and auth status look one it does not hold up in the default folder',
};

/** Production or sandbox: the network policy (and, for a run, where it counts). */
export function environment(description: string): OptionSpec {
  return { flags: '--environment <env>', description, choices: ['sandbox', 'production'], default: 'sandbox' };
}

/** What `run` and `record` share: which connector, which connection, what input. */
export const ACTION_OPTIONS: readonly OptionSpec[] = [
  { flags: '--input <json>', description: 'the action input, a JSON object', default: '{}' },
  BASE_URL,
  AUTH_BASE_URL,
  environment('where the run counts'),
  CONNECTION_SETTINGS,
  { ...CONNECTION_ID, description: `${CONNECTION_ID.description}; checkpoints and idempotency keys are kept under it` },
  CONNECTOR_PACKAGE,
  PLUGIN_FOLDER,
  {
    flags: '--state <dir>',
    description:
      'keep checkpoints and idempotency keys in this folder (a source resumes where the last run ended); a sign-in is looked up here, then in the default state folder',
  },
];

/** What the commands that use a signed-in connection share: which connector, which connection. */
export const CONNECTION_OPTIONS: readonly OptionSpec[] = [
  CONNECTOR_PACKAGE,
  PLUGIN_FOLDER,
  environment('the network policy to connect under'),
  CONNECTION_ID,
  OLD_CONNECTION_NAME,
  SIGNED_IN_STATE,
];

export const METRICS_PORT: OptionSpec = {
  flags: '--metrics-port <port>',
  description: "serve Prometheus' GET /metrics on this port (0: a free one, printed)",
};
