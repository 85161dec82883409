import { resolve } from 'node:path';
import { fileStore } from '@plugboard/runtime';
import { ConnectorError } from '@plugboard/sdk';
import {
  checkpointFromStore,
  checkpointToStore,
  createHostTransport,
  prepareRun,
  resumeFrom,
  streamKey,
} from '@plugboard/sdk/host';
import { RecordingError, recordScenario } from '@plugboard/testing';
import { actionArgs } from '../action-args.js';
import { fixturesFolder } from '../fixtures-folder.js';
import { writeJsonLine } from '../io.js';
import { allowedNetwork } from '../network.js';
import type { Invocation } from '../invocation.js';
import { actionSignedIn, signedInConnection, signedInCredential, signedInCredentials } from '../signed-in.js';
import { jsonOption, UsageError } from '../usage.js';

/**
 * `plugboard record`: the same run as `plugboard run`, recorded through the
 * testing kit (secrets redacted before anything is written) into the
 * connector package's own `test/fixtures/<scenario>.json` (never an installed copy under
 * node_modules; `--fixtures DIR` writes elsewhere). A failure is recorded only when
 * `--expect-error CODE` says the scenario is about it; any other failure writes nothing
 * and is reported like a failed run. An incremental source resumes from `--checkpoint
 * JSON`, or from the checkpoint `run` or an earlier `record` left in `--state DIR` (the
 * second scenario of an incremental pair), where it leaves its own. A connection signed in with
 * `auth login` (`--connection-id NAME`; in `--state DIR`, else the default state folder) records
 * on its kept token set, as `run` runs on it. It
 * says what it recorded on stderr; the records go to stdout with `--print` or when stdout is not
 * a terminal.
 */
export async function recordCommand(invocation: Invocation): Promise<void> {
  const { io, messages } = invocation;
  const args = await actionArgs(invocation);
  const scenario = args.values.scenario;
  if (!scenario || !/^[a-z0-9][a-z0-9._-]*$/i.test(scenario)) {
    throw new UsageError(
      '--scenario <name> is required: letters, digits, dot, dash or underscore, e.g. --scenario projects-list-first-page',
    );
  }
  // A connection signed in with auth login records on its kept token set, renewed where it is kept.
  const signed = await actionSignedIn(io, args, args.connection.id ?? 'default');
  const connection = signedInConnection(args.connection, signed);
  // Bad input is refused here, before anything is sent or written.
  const prepared = prepareRun(args.connector, args.action, {
    input: args.input,
    connection,
    environment: args.environment,
  });
  const baseUrl = prepared.connection.baseUrl;
  const fixturesDir = fixturesFolder(args.values.fixtures, args.dir, args.connector.key, io.cwd);
  const { settings } = connection;
  const expectedError = args.values['expect-error'];
  // The stream `run --state` keeps this source's checkpoint under.
  const state = args.values.state ? fileStore(resolve(io.cwd, args.values.state)) : undefined;
  const stream = streamKey({
    connector: args.connector.key,
    action: args.action,
    connectionId: prepared.connection.id,
    environment: prepared.environment,
    input: prepared.input,
  });
  const given = jsonOption('--checkpoint', args.values.checkpoint, undefined);
  if (given !== undefined && prepared.action.direction !== 'source')
    throw new UsageError(`--checkpoint goes with a source; ${args.action} is a destination`);
  // A kept checkpoint goes the executor's way: an older version's migrated, a newer one's refused.
  const stored =
    prepared.action.direction === 'source' && given === undefined ? await state?.checkpoints.get(stream) : undefined;
  const kept = stored === undefined ? undefined : checkpointFromStore(stored);
  const checkpoint = kept ? resumeFrom(prepared, kept.checkpoint, kept.version).checkpoint : given;
  // Recording sends through fetch, where the recorder sees it; PLUGBOARD_ALLOW_NETWORK applies as for run.
  const transport = createHostTransport({
    via: 'fetch',
    network: { allow: allowedNetwork(io.env) },
    ...(signed ? { credentials: await signedInCredentials(signed) } : {}),
  });
  const result = await recordScenario({
    connector: args.connector,
    scenario: {
      name: scenario,
      action: args.action,
      input: args.input,
      environment: args.environment,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(settings || connection.id
        ? {
            connection: {
              ...(connection.id ? { id: connection.id } : {}),
              ...(settings ? { settings } : {}),
            },
          }
        : {}),
      ...(expectedError ? { expect: { error: expectedError } } : {}),
    },
    fixturesDir,
    baseUrl,
    // A connection signed in at a stand-in (auth login --auth-base-url) refreshes there, as in run.
    ...(connection.authBaseUrl === undefined ? {} : { authBaseUrl: connection.authBaseUrl }),
    credential: signed ? signedInCredential(io, signed) : () => args.credential(connection.id ?? 'default'),
    transport,
  })
    .catch((error: unknown) => {
      if (error instanceof RecordingError && error.cause instanceof ConnectorError) {
        messages.say({ level: 'error', message: error.message });
        throw error.cause;
      }
      throw error;
    })
    .finally(() => transport.close());
  const { outcome } = result.fixture;
  if (state && 'checkpoint' in outcome && outcome.checkpoint !== undefined)
    await state.checkpoints.commit(stream, checkpointToStore(outcome.checkpoint, prepared.checkpointVersion ?? 1));
  // The records are in the fixture: stdout gets them for a script (a pipe, a file) or on --print,
  // a person at a terminal the summary alone.
  const print = invocation.values.print === true || !io.stdout.isTTY;
  if (print && 'records' in outcome) for (const record of outcome.records) writeJsonLine(io.stdout, record);
  const summary =
    'error' in outcome ? `error ${outcome.error.code}` : `${outcome.records.length} records in ${outcome.pages} pages`;
  const held = print || 'error' in outcome ? '' : '; --print prints the records';
  messages.say({
    level: 'info',
    message: `recorded scenario '${scenario}' (${result.fixture.calls.length} calls, ${summary}) to ${result.fixturePath}${held}`,
  });
}
