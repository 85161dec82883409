import type { CommandSpec } from './command-spec.js';
import { AUTH_BASE_URL, CONNECTION_OPTIONS, CONNECTOR_KEY_OF_FOLDER } from './common-options.js';

export const CHECK: CommandSpec = {
  name: 'check',
  summary: "check a connection's credential and print its LiveCheck",
  description:
    "Run the connector's connection check through the same pipeline as a run and print the LiveCheck as one JSON line (state passed, credentials_changed, expired, failed or not_checked; fixHint says what a person must do). A connection signed in with auth login (--connection-id NAME; in --state DIR, else the default state folder) uses and renews its kept token set where it is kept, and the expiry printed is the one kept after the check; any other uses PLUGBOARD_CREDENTIAL (and with --auth-base-url URL, sandbox only, gets its OAuth2 tokens from a stand-in authorization server such as plugboard mock's). Exits 0 only when it passed, 4 when it did not (sign in again, or the fixHint), 2 when the connector has no check.",
  arguments: [CONNECTOR_KEY_OF_FOLDER],
  options: [
    ...CONNECTION_OPTIONS,
    { flags: '--base-url <url>', description: "the provider's base URL for this connection" },
    AUTH_BASE_URL,
  ],
  examples: [
    'plugboard check shop --base-url https://api.shop.example',
    'PLUGBOARD_CREDENTIAL=... plugboard check descript --base-url http://127.0.0.1:4010',
    'plugboard check shop --connection-id work --base-url https://api.shop.example',
  ],
  load: async () => (await import('../commands/check.js')).checkCommand,
};
