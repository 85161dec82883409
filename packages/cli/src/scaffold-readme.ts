import { sampleOf } from '@plugboard/catalogue/sample';
import type { GeneratedAction } from './openapi-actions.js';
import type { ScaffoldAuth } from './openapi-auth.js';

/**
 * What a scaffold's README says under "Record fixtures": the options `plugboard mock` is started
 * with, the credential the record commands run with (a placeholder token, or for an OAuth2
 * sign-in one `auth login` at the mock's stand-in authorization server), one `plugboard record`
 * command per scenario, and what they do.
 */

/** Where the README's stand-in listens. */
export const STAND_IN = 'http://127.0.0.1:4010';

export interface RecordTokens {
  /** The options after `plugboard mock <file> --port 4010`. */
  mockOptions: string;
  /** What the mock serves besides the API, after "serve the API as a local stand-in (in a second terminal)". */
  standInAuth: string;
  /** The lines of the record block before `npx plugboard test`. */
  recordCommands: string;
  /** The paragraph after the block. */
  recordNote: string;
}

const PLACEHOLDER = 'export PLUGBOARD_CREDENTIAL=stand-in-token';
const REAL =
  "With a real credential and the API's own base URL the same commands record the real\nthing; secrets are redacted before anything is written.";
const SIGN_IN = `PLUGBOARD_CLIENT_ID=plugboard-mock npx plugboard auth login --auth-base-url ${STAND_IN}/oauth`;
const SIGN_IN_NOTE =
  '`auth login` signs in once, at the stand-in: it prints the URL to open (and opens it in a browser at a\nterminal); the stand-in consents at once and sends the browser back with a code, and the token set is\nkept in the default state folder and refreshed as it is used. Each `record` runs on that signed-in\nconnection, also with `--state .record-state`.\n\n';
const SIGNED_IN_REAL =
  "With the client the provider registered for you, sign in again without\n`--auth-base-url` (`PLUGBOARD_CLIENT_ID=<client id>`), and the same record commands with the API's own base\nURL record the real thing; secrets are redacted before anything is written.";
const CLIENT = `export PLUGBOARD_CREDENTIAL='{"clientId":"<client id>","clientSecret":"<client secret>"}'`;
const CLIENT_NOTE =
  "A client credentials connection asks the scheme's token URL for its access token, a request\n`plugboard record` cannot yet send to the stand-in (whose API takes only the tokens it issued): record\nwith the client the provider registered for you and the API's own base URL in place of the stand-in's. ";
const INCREMENTAL_NOTE =
  'The `-since` scenario of an incremental source starts where its first ended (the same `--state` folder):\nthe standard suite checks that it reads nothing twice. Started with `--grow 3`, the stand-in adds three\nnewer records after a read to the end, for the second run to read. ';

/** A shell word in single quotes. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The record commands of a generated action: an incremental source's twice, the second from the first's checkpoint. */
function recordCommands(action: GeneratedAction, standIn: string): string[] {
  const input = quoted(JSON.stringify(sampleOf(action.inputSchema, { requiredOnly: true })));
  const scenarios = action.incremental ? [action.key, `${action.key}-since`] : [action.key];
  return scenarios.map(
    (scenario) =>
      `npx plugboard record ${action.key} --input ${input} --scenario ${scenario}${action.incremental ? ' --state .record-state' : ''} --base-url ${standIn}`,
  );
}

/** The README's record section for generated actions, at the stand-in's base URL `standIn`, with the connector's credential. */
export function recordTokens(actions: readonly GeneratedAction[], standIn: string, auth: ScaffoldAuth): RecordTokens {
  const incremental = actions.some((action) => action.incremental);
  const records = actions.flatMap((action) => recordCommands(action, standIn));
  const each = `Each action needs a scenario with a successful run before the standard suite passes. ${incremental ? INCREMENTAL_NOTE : ''}`;
  const mockOptions = incremental ? ' --grow 3' : '';
  if (auth.signsIn)
    return {
      mockOptions,
      standInAuth:
        ', and beside it a\nstand-in OAuth2 authorization server (the mock serves one for the connector built in this folder)',
      recordCommands: [SIGN_IN, ...records].join('\n'),
      recordNote: `${SIGN_IN_NOTE}${each}${SIGNED_IN_REAL}`,
    };
  return {
    mockOptions,
    standInAuth: '',
    recordCommands: [auth.clientCredentials ? CLIENT : PLACEHOLDER, ...records].join('\n'),
    recordNote: `${auth.clientCredentials ? CLIENT_NOTE : ''}${each}${REAL}`,
  };
}

/** The template's own pair: an incremental items.list, recorded twice, and items.create. */
export function exampleRecordTokens(): RecordTokens {
  return {
    mockOptions: '',
    standInAuth: '',
    recordCommands: [
      PLACEHOLDER,
      `npx plugboard record items.list --scenario items-full --state .record-state --base-url ${STAND_IN}/v1`,
      `npx plugboard record items.list --scenario items-since --state .record-state --base-url ${STAND_IN}/v1`,
      `npx plugboard record items.create --input '{"name":"New item"}' --scenario items-create --base-url ${STAND_IN}/v1`,
    ].join('\n'),
    recordNote: `The second \`items.list\` scenario starts where the first ended (the same \`--state\` folder): the\nstandard suite checks that it reads nothing twice. ${REAL}`,
  };
}
