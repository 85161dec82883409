import { sampleOf } from '@plugboard/catalogue/sample';
import type { GeneratedAction } from './openapi-actions.js';
import type { ScaffoldAuth } from './openapi-auth.js';

/**
 * What a scaffold's README says under "Record fixtures": the options `plugboard mock` is started
 * with, the credential the record commands run with (a placeholder token; for an OAuth2 sign-in
 * one `auth login` at the mock's stand-in authorization server; for OAuth2 client credentials
 * the stand-in's client, whose token requests go there with `--auth-base-url`), one
 * `plugboard record` command per scenario, and what they do.
 */

/** Where the README's stand-in listens. */
export const STAND_IN = 'http://127.0.0.1:4010';

export interface RecordTokens {
  /** The environment before `npx plugboard mock` (with a space after it), or ''. */
  mockEnv: string;
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
/** The stand-in client's secret: the mock is started with it, and PLUGBOARD_CREDENTIAL gives the same. */
const STAND_IN_SECRET = 'stand-in-secret';
const CLIENT = `export PLUGBOARD_CREDENTIAL='{"clientId":"plugboard-mock","clientSecret":"${STAND_IN_SECRET}"}'`;
const STAND_IN_AUTH =
  ', and beside it a\nstand-in OAuth2 authorization server (the mock serves one for the connector built in this folder)';
const CLIENT_NOTE =
  "Started with `PLUGBOARD_CLIENT_SECRET`, the stand-in's client `plugboard-mock` is confidential and\ngets access tokens by the client credentials grant; `--auth-base-url` sends each `record`'s token\nrequests there instead of the scheme's token URL (sandbox only), with the client and secret of\n`PLUGBOARD_CREDENTIAL`. A token that expires is replaced by a new grant.\n\n";
const CLIENT_REAL =
  "With the client the provider registered for you in `PLUGBOARD_CREDENTIAL`, the same record\ncommands without `--auth-base-url` and with the API's own base URL record the real thing; secrets are\nredacted before anything is written.";
const INCREMENTAL_NOTE =
  'The `-since` scenario of an incremental source starts where its first ended (the same `--state` folder):\nthe standard suite checks that it reads nothing twice. Started with `--grow 3`, the stand-in adds three\nnewer records after a read to the end, for the second run to read. ';

/** A shell word in single quotes. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The record commands of a generated action: an incremental source's twice, the second from the
 * first's checkpoint; `authAt` (`--auth-base-url URL`) before the base URL when the tokens come from the stand-in.
 */
function recordCommands(action: GeneratedAction, standIn: string, authAt: string): string[] {
  const input = quoted(JSON.stringify(sampleOf(action.inputSchema, { requiredOnly: true })));
  const scenarios = action.incremental ? [action.key, `${action.key}-since`] : [action.key];
  return scenarios.map(
    (scenario) =>
      `npx plugboard record ${action.key} --input ${input} --scenario ${scenario}${action.incremental ? ' --state .record-state' : ''}${authAt} --base-url ${standIn}`,
  );
}

/** The README's record section for generated actions, at the stand-in's base URL `standIn`, with the connector's credential. */
export function recordTokens(actions: readonly GeneratedAction[], standIn: string, auth: ScaffoldAuth): RecordTokens {
  const incremental = actions.some((action) => action.incremental);
  const authAt = auth.clientCredentials ? ` --auth-base-url ${STAND_IN}/oauth` : '';
  const records = actions.flatMap((action) => recordCommands(action, standIn, authAt));
  const each = `Each action needs a scenario with a successful run before the standard suite passes. ${incremental ? INCREMENTAL_NOTE : ''}`;
  const mockOptions = incremental ? ' --grow 3' : '';
  if (auth.signsIn)
    return {
      mockEnv: '',
      mockOptions,
      standInAuth: STAND_IN_AUTH,
      recordCommands: [SIGN_IN, ...records].join('\n'),
      recordNote: `${SIGN_IN_NOTE}${each}${SIGNED_IN_REAL}`,
    };
  if (auth.clientCredentials)
    return {
      mockEnv: `PLUGBOARD_CLIENT_SECRET=${STAND_IN_SECRET} `,
      mockOptions,
      standInAuth: STAND_IN_AUTH,
      recordCommands: [CLIENT, ...records].join('\n'),
      recordNote: `${CLIENT_NOTE}${each}${CLIENT_REAL}`,
    };
  return {
    mockEnv: '',
    mockOptions,
    standInAuth: '',
    recordCommands: [PLACEHOLDER, ...records].join('\n'),
    recordNote: `${each}${REAL}`,
  };
}

/** The template's own pair: an incremental items.list, recorded twice, and items.create. */
export function exampleRecordTokens(): RecordTokens {
  return {
    mockEnv: '',
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
