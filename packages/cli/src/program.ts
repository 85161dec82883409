import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import type { CliIo } from './io.js';
import { exitCodesHelp } from './exit-codes.js';
import type { FindConnector } from './connectors.js';
import type { Messages } from './messages.js';

/**
 * The `plugboard` command line: every command, its options, its help and examples, in one
 * place. Parsing ends here; each command's module is loaded only when that command runs, so
 * `--help` and `run` never load the catalogue generator, the testing kit or vitest.
 */

/** What a command's module receives: its arguments and options as parsed, and where it runs. */
export interface Invocation {
  args: string[];
  /** Options by their long name without dashes (`base-url`), as typed; flags are booleans. */
  values: Record<string, string | boolean | string[] | undefined>;
  io: CliIo;
  /** Info lines and warnings on stderr, as text for a person or JSON lines. */
  messages: Messages;
  findConnector: FindConnector;
  signal: AbortSignal;
}

/** A command's module: resolves when done, with an exit code when it has its own (a diff that found breaking changes). */
export type CommandRun = (invocation: Invocation) => Promise<void | number>;

export const COMMANDS = {
  run: async () => (await import('./commands/run.js')).runCommand,
  record: async () => (await import('./commands/record.js')).recordCommand,
  test: async () => (await import('./commands/test.js')).testCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
  catalogue: async () => (await import('./commands/catalogue.js')).catalogueCommand,
  'catalogue diff': async () => (await import('./commands/catalogue.js')).catalogueDiffCommand,
  plugins: async () => (await import('./commands/plugins.js')).pluginsCommand,
  'idempotency show': async () => (await import('./commands/idempotency.js')).showCommand,
  'idempotency settle': async () => (await import('./commands/idempotency.js')).settleCommand,
  simulate: async () => (await import('./commands/simulate.js')).simulateCommand,
  mock: async () => (await import('./commands/mock.js')).mockCommand,
  new: async () => (await import('./commands/new.js')).newCommand,
  'auth login': async () => (await import('./commands/auth-login.js')).authLoginCommand,
  'auth status': async () => (await import('./commands/auth-status.js')).authStatusCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  options: async () => (await import('./commands/options.js')).optionsCommand,
  describe: async () => (await import('./commands/describe.js')).describeCommand,
} satisfies Record<string, () => Promise<CommandRun>>;

export type CommandName = keyof typeof COMMANDS;

export const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const ENVIRONMENT_HELP = `Environment:
  PLUGBOARD_CREDENTIAL     the connection's credential (never an argument)
  PLUGBOARD_CLIENT_ID      the OAuth2 client auth login signs in as (or --client-id)
  PLUGBOARD_CLIENT_SECRET  a confidential OAuth2 client's secret (never an argument)
  PLUGBOARD_REDIS_URL      share rate budgets with every process on that Redis (needs ioredis)
  PLUGBOARD_ALLOW_NETWORK  address ranges the network policy lets through, e.g. 127.0.0.0/8
                           (production runs reach public addresses only, sandbox also loopback)
  PLUGBOARD_STATE          where idempotency keys and signed-in connections are kept without --state
`;

/** Options `run` and `record` share: which connector, which connection, what input. */
function actionOptions(command: Command): Command {
  return command
    .option('--input <json>', 'the action input, a JSON object', '{}')
    .option('--base-url <url>', "the provider's base URL for this connection (a local stand-in, a simulator)")
    .addOption(
      new Option('--environment <env>', 'where the run counts').choices(['sandbox', 'production']).default('sandbox'),
    )
    .option(
      '--connection <json>',
      'connection settings, a JSON object (no secrets: those come from PLUGBOARD_CREDENTIAL)',
    )
    .option(
      '--connection-id <id>',
      'the connection id idempotency keys and checkpoints are kept under (default: default)',
    )
    .option(
      '--connector <dir|package>',
      "the connector package: a folder, or an installed package name (default: this folder's package)",
    )
    .option('--plugins <dir>', 'a folder npm or pnpm installed connector packages into')
    .option(
      '--state <dir>',
      'keep checkpoints and idempotency keys in this folder (a source resumes where the last run ended)',
    );
}

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

export interface ProgramHooks {
  io: CliIo;
  /** Runs a command by name once parsing is done. */
  run(name: CommandName, args: string[], values: Invocation['values'], json: boolean): Promise<void>;
  /** Whether the pack's simulators can be loaded here (inside the Plugboard repository). */
  simulators: boolean;
}

/** Options by long name, as `Invocation.values` holds them. */
function valuesOf(command: Command): Invocation['values'] {
  const opts = command.opts();
  const values: Invocation['values'] = {};
  for (const option of command.options)
    values[(option.long ?? option.short ?? '').replace(/^-+/, '')] = opts[option.attributeName()];
  return values;
}

export function buildProgram(hooks: ProgramHooks): Command {
  const { io } = hooks;
  const program = new Command('plugboard');
  const action = (name: CommandName) =>
    async function (this: Command) {
      await hooks.run(name, this.args, valuesOf(this), program.opts().json === true || this.opts().json === true);
    };
  program
    .description('Run, record, test and publish Plugboard connectors.')
    .version(VERSION, '-V, --version', 'print the version of plugboard')
    .option(
      '--json',
      'print messages and failures on stderr as JSON lines, failures as platform Error JSON (the default when stderr is not a terminal)',
    )
    .showSuggestionAfterError(true)
    // Each command parses its own options: `catalogue --plugins` and `catalogue diff --plugins` are two.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      // Usage errors are reported by the caller, in the chosen format.
      outputError: () => undefined,
    })
    .addHelpText('after', `\n${exitCodesHelp()}\n${ENVIRONMENT_HELP}`);

  program
    .command('new')
    .summary('scaffold a connector package')
    .description(
      'Create a connector package in a new folder: package.json (scripts, dependencies, engines), tsconfig, the connector with an incremental source and a destination (one file per action), the standard suite with its recorded fixtures, openapi.yaml for plugboard mock, and a README. It builds and its tests pass after npm install.',
    )
    .argument(
      '<name>',
      'the connector key: lower case letters, digits and dashes (the package is plugboard-connector-<name>)',
    )
    .option('--dir <dir>', 'the folder to create (default: ./<name>); it may exist if empty')
    .option(
      '--from-openapi <file>',
      'generate the actions, with zod schemas, from operations of this OpenAPI 3.0 or 3.1 document (JSON or YAML)',
    )
    .option(
      '--operations <ids>',
      'with --from-openapi: the operationIds to generate, comma-separated; ID=resource.verb names its action key',
    )
    .addHelpText(
      'after',
      examples([
        'plugboard new acme',
        'npx @plugboard/cli new acme --dir ./connectors/acme',
        'plugboard new acme --from-openapi ./acme-openapi.yaml --operations listProjects,getProject,sendMessage=messages.send',
      ]),
    )
    .action(action('new'));

  actionOptions(
    program
      .command('run')
      .summary('run an action and print its records as JSON lines')
      .description(
        'Run one action through the executor, as the platform runs it: the input is validated before anything is sent, an action that needs approval here runs only with a decision by someone else, records go to stdout as JSON lines, progress and messages to stderr.',
      )
      .usage('[connector] <action> [options]')
      .argument('[connector]', 'the connector key (default: the connector package of this folder, or --connector)')
      .argument('[action]', 'the action key, e.g. projects.list (required)'),
  )
    .option(
      '--idempotency-key <key>',
      'a destination runs once under this key; a repeat returns the first result without sending',
    )
    .option(
      '--approval <json>',
      'the decision of someone else on this run: {"digest","requestedBy","decidedBy","decision","expiresAt"}',
    )
    .addHelpText(
      'after',
      examples([
        'plugboard run descript projects.list --input \'{"limit":20}\' --state ./state',
        'plugboard run projects.list --connector ./my-connector --base-url http://127.0.0.1:4010',
        'plugboard run descript media_imports.create --environment production --input \'{"project_name":"Demo","add_media":{"a.mp4":{"url":"https://example.com/a.mp4"}}}\' --idempotency-key import-1',
      ]),
    )
    .action(action('run'));

  actionOptions(
    program
      .command('record')
      .summary("record a scenario into the connector's test/fixtures")
      .description(
        "Run an action against the real provider (or a local stand-in) and record every exchange, secrets redacted before anything is written, into the connector package's test/fixtures/<scenario>.json, which the standard suite replays offline. An incremental source records its second scenario from where the first ended: --state DIR (the same folder for both), or --checkpoint JSON.",
      )
      .usage('[connector] <action> --scenario <name> [options]')
      .argument('[connector]', 'the connector key (default: the connector package of this folder, or --connector)')
      .argument('[action]', 'the action key (required)'),
  )
    .requiredOption('--scenario <name>', 'the scenario name: letters, digits, dot, dash, underscore')
    .option('--checkpoint <json>', 'resume an incremental source from this checkpoint')
    .option('--fixtures <dir>', "write the fixture here instead of the connector package's test/fixtures")
    .option('--expect-error <code>', 'the scenario is about this failure: record it rather than fail')
    .addHelpText(
      'after',
      examples([
        'plugboard record projects.list --scenario projects-first --input \'{"limit":2}\' --state .record-state --base-url http://127.0.0.1:4010',
        'plugboard record projects.list --scenario projects-incremental --input \'{"limit":2}\' --state .record-state --base-url http://127.0.0.1:4010',
        'plugboard record status.get --scenario bad-token --expect-error authentication_failed',
      ]),
    )
    .action(action('record'));

  program
    .command('replay')
    .summary('replay a recorded scenario with the network closed')
    .description(
      'Run a recorded scenario again from its fixture with the network closed, as the standard suite does, and print its records as JSON lines. A request the recording does not hold, or a recorded request not made, fails it.',
    )
    .usage('[connector] --scenario <name> [options]')
    .argument('[connector]', 'the connector key (default: the connector package of this folder, or --connector)')
    .requiredOption('--scenario <name>', 'the recorded scenario')
    .option('--fixtures <dir>', "where the fixture is (default: the connector package's test/fixtures)")
    .option(
      '--connector <dir|package>',
      "the connector package: a folder, or an installed package name (default: this folder's package)",
    )
    .option('--plugins <dir>', 'a folder npm or pnpm installed connector packages into')
    .addHelpText(
      'after',
      examples([
        'plugboard replay --scenario items-full',
        'plugboard replay descript --scenario status --fixtures ./fixtures',
      ]),
    )
    .action(action('replay'));

  program
    .command('test')
    .summary("run the connector package's own tests (its standard suite)")
    .description(
      'Run the test script of the connector package (npm test in its folder), which replays the recorded fixtures through the standard suite; exits with its code.',
    )
    .option('--connector <dir>', "the connector package folder (default: this folder's package)")
    .addHelpText('after', examples(['plugboard test', 'plugboard test --connector ./my-connector']))
    .action(action('test'));

  const catalogue = program
    .command('catalogue')
    .summary('write the public catalogue (JSON, JSON Schemas, .d.ts, OpenAPI, a static site)')
    .description(
      "Write the public catalogue of the named connectors (keys, found as run finds them), of --connector packages, of every connector in --plugins DIR, or of this folder's connector package: connectors/<key>.json, index.json, schemas/, types/, openapi.json and index.html. generatedAt honours SOURCE_DATE_EPOCH.",
    )
    .argument('[connectors...]', 'connector keys')
    // Not a required option: commander would ask it of `catalogue diff` too.
    .option('-o, --out <dir>', 'the folder to write into (required)')
    .option('--connector <dir|package...>', 'connector packages: folders or installed package names')
    .option('--plugins <dir>', 'every connector package installed in this folder')
    .option('--package <key=name...>', "the npm package name to show for a connector key (default: its package.json's)")
    .addHelpText(
      'after',
      examples([
        'plugboard catalogue --out ./catalogue',
        'plugboard catalogue descript insurance --out ./catalogue',
        'plugboard catalogue diff ./old-catalogue ./new-catalogue',
      ]),
    )
    .action(action('catalogue'));
  catalogue
    .command('diff')
    .summary('compare two catalogues and find the breaking changes')
    .description(
      "OLD and NEW are catalogue folders or connector packages (a package folder, or a package name installed in --plugins DIR, default this folder; loaded in this process, so trusted ones only). Exits 1 when a change breaks users and names the package that needs a major changeset, 0 otherwise, 2 when a folder's index.json disagrees with its connector files.",
    )
    .argument('<old>', 'the catalogue or package before')
    .argument('<new>', 'the catalogue or package after')
    .option('--json', 'print the result as JSON')
    .option('--plugins <dir>', 'where package names are installed (default: this folder)')
    .addHelpText(
      'after',
      examples([
        'plugboard catalogue diff ./catalogue-1.2.0 ./catalogue',
        'plugboard catalogue diff ./node_modules/plugboard-connector-acme .',
      ]),
    )
    .action(action('catalogue diff'));

  program
    .command('plugins')
    .summary('list the connector packages a plugin folder holds')
    .description(
      'Load every package installed in DIR whose package.json has a plugboard manifest and print {"loaded": [...], "failed": [{"package", "reason"}]} as one JSON line.',
    )
    .requiredOption('--dir <dir>', 'the folder npm or pnpm installed the connector packages into')
    .addHelpText('after', examples(['plugboard plugins --dir ./plugins']))
    .action(action('plugins'));

  const idempotency = program
    .command('idempotency')
    .summary('look at and settle idempotency keys')
    .description(
      "What is kept under an idempotency key, and an operator's decision on a key whose run was left running (its process died) or uncertain.",
    );
  const stateOption = () =>
    new Option(
      '--state <dir>',
      'the state folder (default: $PLUGBOARD_STATE, else $XDG_STATE_HOME/plugboard, else ~/.local/state/plugboard)',
    );
  idempotency
    .command('show')
    .summary('print what is kept under a key')
    .argument('<key>', 'the idempotency key')
    .addOption(stateOption())
    .addHelpText('after', examples(['plugboard idempotency show import-1 --state ./state']))
    .action(action('idempotency show'));
  idempotency
    .command('settle')
    .summary('settle a key left running or uncertain')
    .description(
      'Once the provider showed what happened: failed releases the key (the next run with it runs again); succeeded keeps --result (default null), which the next run returns without sending anything. Refused for a key that succeeded, and for a running key younger than --min-age unless --force. Who, when, why and what the key was before are kept with it.',
    )
    .argument('<key>', 'the idempotency key')
    .addOption(
      new Option('--as <outcome>', 'what the provider shows the run did')
        .choices(['succeeded', 'failed'])
        .makeOptionMandatory(),
    )
    .requiredOption('--by <name>', 'who decides')
    .requiredOption('--reason <text>', 'why, e.g. what the provider shows')
    .option('--result <json>', 'with --as succeeded: the result the next run returns')
    .option('--min-age <duration>', 'refuse a running key younger than this: 90s, 15m, 2h, 1d (default 1h)')
    .option('--force', 'settle a running key however young')
    .addOption(stateOption())
    .addHelpText(
      'after',
      examples([
        'plugboard idempotency settle import-1 --as failed --by ana --reason "the provider shows no import" --state ./state',
      ]),
    )
    .action(action('idempotency settle'));

  program
    .command('mock')
    .summary('serve a local stand-in for an API from its OpenAPI document')
    .description(
      "Serve the API an OpenAPI 3.0 or 3.1 document (JSON or YAML) describes on 127.0.0.1, until interrupted, to record fixtures against before there are credentials: each operation answers its first success response's example, or a sample of its schema, after checking the request (path, method, the credential a secured operation needs, required parameters, the JSON body against its schema; a refusal names the field). A list operation that pages (a cursor, offset or page parameter, a next cursor, next URL or Link header in its answer) serves --records records made from its schema, up to the start of the day (UTC), oldest first (or as its sort direction parameter says), page by page the way the document says, and honours its newer-than and older-than filters; with --grow K, each read of a list after its first finds K newer records, for an incremental second run. The base URL is the address plus the path of the document's first server.",
    )
    .argument('<openapi-file>', 'the OpenAPI document')
    .option('--port <n>', 'the port (0: a free one)', '0')
    .option('--host <address>', 'the address to listen on', '127.0.0.1')
    .option('--records <n>', 'records each paged list operation serves', '250')
    .option('--grow <k>', 'records each paged list adds, newer than all, before each read after its first', '0')
    .option('--seed <text>', 'what the records are made from: the same seed, the same records', '1')
    .addHelpText(
      'after',
      examples([
        'plugboard mock openapi.yaml --port 4010',
        'plugboard mock openapi.yaml --port 4010 --records 250 --grow 5',
        'PLUGBOARD_CREDENTIAL=test-token plugboard record items.list --scenario items-full --base-url http://127.0.0.1:4010/v1',
      ]),
    )
    .action(action('mock'));

  const auth = program
    .command('auth')
    .summary('sign in to a connection and see the connections signed in')
    .description(
      'Sign in to an OAuth2 connection in a browser and keep its token set in the state folder (only its owner may read it), where run and check find and renew it.',
    );
  const connectorSource = (command: Command) =>
    command
      .option(
        '--connector <dir|package>',
        "the connector package: a folder, or an installed package name (default: this folder's package)",
      )
      .option('--plugins <dir>', 'a folder npm or pnpm installed connector packages into')
      .addOption(
        new Option('--environment <env>', 'the network policy to connect under')
          .choices(['sandbox', 'production'])
          .default('sandbox'),
      )
      .option('--connection <name>', 'the connection, as run --connection-id names it (default: default)')
      .option('--state <dir>', 'where signed-in connections are kept (default: PLUGBOARD_STATE, else XDG_STATE_HOME)');
  connectorSource(
    auth
      .command('login')
      .summary('sign in with OAuth2 in a browser and keep the token set')
      .description(
        "Run the OAuth2 authorization code flow with PKCE: a listener on 127.0.0.1 and a free port waits for the redirect (path /callback, register http://127.0.0.1/callback with the provider), the URL to open is printed (and opened in a browser when you are at a terminal, never in CI), the code that comes back with the request's state is exchanged, and the token set is kept in the state folder's credential store (folder 0700, files 0600). The client id comes from --client-id or PLUGBOARD_CLIENT_ID, a confidential client's secret from PLUGBOARD_CLIENT_SECRET only.",
      )
      .argument('[connector]', "the connector key (default: this folder's connector package, or --connector)"),
  )
    .option('--client-id <id>', 'the OAuth2 client the provider registered for you (default: PLUGBOARD_CLIENT_ID)')
    .option('--scheme <id>', 'the sign-in scheme, when the connector has several')
    .addHelpText(
      'after',
      examples([
        'plugboard auth login shop --client-id my-client',
        'PLUGBOARD_CLIENT_ID=my-client plugboard auth login shop --connection work --state ./state',
      ]),
    )
    .action(action('auth login'));
  auth
    .command('status')
    .summary('list the connections signed in, their expiry and last check')
    .description(
      'Each connection kept by auth login: connector, connection, scheme, client id, when the access token expires and the last check; never a token or a secret. JSON ({"connections": [...]}) with --json or when stdout is not a terminal.',
    )
    .option('--state <dir>', 'where signed-in connections are kept (default: PLUGBOARD_STATE, else XDG_STATE_HOME)')
    .option('--json', 'print the connections as JSON')
    .addHelpText('after', examples(['plugboard auth status', 'plugboard auth status --json --state ./state']))
    .action(action('auth status'));

  connectorSource(
    program
      .command('check')
      .summary("check a connection's credential and print its LiveCheck")
      .description(
        "Run the connector's connection check through the same pipeline as a run and print the LiveCheck as one JSON line (state passed, credentials_changed, expired, failed or not_checked; fixHint says what a person must do). A connection signed in with auth login uses and renews its kept token set; any other uses PLUGBOARD_CREDENTIAL. Exits 0 only when it passed, 4 when it did not (sign in again, or the fixHint), 2 when the connector has no check.",
      )
      .argument('[connector]', "the connector key (default: this folder's connector package, or --connector)"),
  )
    .option('--base-url <url>', "the provider's base URL for this connection")
    .addHelpText(
      'after',
      examples([
        'plugboard check shop --base-url https://api.shop.example',
        'PLUGBOARD_CREDENTIAL=... plugboard check descript --base-url http://127.0.0.1:4010',
      ]),
    )
    .action(action('check'));

  program
    .command('options')
    .summary("list the options of an action's input field as JSON lines")
    .description(
      'List one page of the values an input field may take (a field with options, such as a project id), through the same connection, credential and pipeline as run. Each option is a JSON line {"value","label","description"?} on stdout; when there are more, a last line {"nextCursor"} gives the --cursor of the next page.',
    )
    .usage('[connector] <action> <field> [options]')
    .argument('[connector]', 'the connector key (default: the connector package of this folder, or --connector)')
    .argument('[action]', 'the action key, e.g. media_imports.create (required)')
    .argument('[field]', 'the input field, e.g. project_id (required)')
    .option('--search <text>', 'only the options that match this text (the provider searches where it can)')
    .option('--cursor <cursor>', 'the page after the one whose last line gave this nextCursor')
    .option('--base-url <url>', "the provider's base URL for this connection (a local stand-in, a simulator)")
    .addOption(
      new Option('--environment <env>', 'the network policy it connects under')
        .choices(['sandbox', 'production'])
        .default('sandbox'),
    )
    .option(
      '--connection <json>',
      'connection settings, a JSON object (no secrets: those come from PLUGBOARD_CREDENTIAL)',
    )
    .option('--connection-id <id>', 'the connection id (default: default); a signed-in connection is used by it')
    .option(
      '--connector <dir|package>',
      "the connector package: a folder, or an installed package name (default: this folder's package)",
    )
    .option('--plugins <dir>', 'a folder npm or pnpm installed connector packages into')
    .option('--state <dir>', 'where signed-in connections are kept (default: PLUGBOARD_STATE, else XDG_STATE_HOME)')
    .addHelpText(
      'after',
      examples([
        'plugboard options descript media_imports.create project_id --search interview',
        'plugboard options descript agent_edits.create model --base-url http://127.0.0.1:4010',
      ]),
    )
    .action(action('options'));

  program
    .command('describe')
    .summary("list a connector's actions, or an action's inputs")
    .description(
      "Read the connector's definition: without an action, each action with its mode, effect (reads or writes, billable), approval and rate budget; with one, the action's inputs with their types, whether required, defaults and examples. Text at a terminal; one JSON line with --json or when stdout is not a terminal.",
    )
    .usage('[connector] [action] [options]')
    .argument('[connector]', "the connector key (default: this folder's connector package, or --connector)")
    .argument('[action]', 'the action key, e.g. media_imports.create')
    .option(
      '--connector <dir|package>',
      "the connector package: a folder, or an installed package name (default: this folder's package)",
    )
    .option('--plugins <dir>', 'a folder npm or pnpm installed connector packages into')
    .option('--json', 'print it as one JSON line')
    .addHelpText(
      'after',
      examples([
        'plugboard describe descript',
        'plugboard describe descript media_imports.create',
        'plugboard describe items.list --connector ./my-connector',
      ]),
    )
    .action(action('describe'));

  program
    .command('simulate', { hidden: !hooks.simulators })
    .summary('start a provider simulator of the Plugboard repository')
    .description(
      'Start the local simulator of a pack connector on 127.0.0.1 and print {"provider","url","credential"} as one JSON line; runs until interrupted. Available inside the Plugboard repository.',
    )
    .argument('<provider>', 'descript or insurance')
    .option('--port <n>', 'the port (default: a free one)', '0')
    .option('--seed <n>', 'the seed of the simulated data')
    .option('--size <n>', 'how many projects the Descript simulator serves')
    .option('--openapi <path>', "the provider's OpenAPI document the Descript simulator checks requests against")
    .addHelpText('after', examples(['plugboard simulate descript --port 4010']))
    .action(action('simulate'));

  // --json after the command too: `plugboard run ... --json`.
  const leaves = (command: Command): Command[] =>
    command.commands.length === 0 ? [command] : command.commands.flatMap(leaves);
  for (const command of [...program.commands.flatMap(leaves), catalogue]) {
    if (!command.options.some((option) => option.long === '--json'))
      command.option('--json', 'print messages and failures on stderr as JSON lines');
  }
  return program;
}

export { type Command, CommanderError };
