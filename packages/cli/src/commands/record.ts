import { join, resolve } from 'node:path';
import { fileStore } from '@plugboard/runtime';
import { type Connector, ConnectorError, createTransport, prepareRun, streamKey } from '@plugboard/sdk';
import { RecordingError, recordScenario } from '@plugboard/testing';
import { packOrPlugins, parseActionArgs, RUN_PATH_OPTIONS } from '../action-args.js';
import { type CliIo, writeJsonLine } from '../io.js';
import { allowedNetwork } from '../network.js';
import { packageFolder } from '../pack.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard record`: the same run as `plugboard run`, recorded through the
 * testing kit (secrets redacted before anything is written) into the
 * connector's `test/fixtures/<scenario>.json`. A failure is recorded only when
 * `--expect-error CODE` says the scenario is about it; any other failure
 * writes nothing and is reported like a failed run. It takes what `run` takes:
 * `--plugins DIR` for a connector of a plugin folder, and `--state DIR`, where
 * an incremental source resumes from the checkpoint `run` or an earlier
 * `record` left (the second scenario of an incremental pair) and leaves its own.
 */
export async function recordCommand(argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>): Promise<void> {
  const args = await parseActionArgs(
    argv,
    { ...RUN_PATH_OPTIONS, scenario: { type: 'string' }, fixtures: { type: 'string' }, 'expect-error': { type: 'string' } },
    packOrPlugins(pack, io),
    io,
  );
  const scenario = args.values.scenario;
  if (!scenario || !/^[a-z0-9][a-z0-9._-]*$/i.test(scenario)) {
    throw new UsageError('--scenario <name> is required: letters, digits, dot, dash or underscore, e.g. --scenario projects-list-first-page');
  }
  // Bad input is refused here, before anything is sent or written.
  const prepared = prepareRun(args.connector, args.action, { input: args.input, connection: args.connection, environment: args.environment });
  const baseUrl = prepared.connection.baseUrl;
  const folder = args.values.fixtures ? resolve(io.cwd, args.values.fixtures) : packageFolder(args.connector.key);
  if (!folder) throw new UsageError(`--fixtures DIR is required for connector '${args.connector.key}'`);
  const fixturesDir = args.values.fixtures ? folder : join(folder, 'test', 'fixtures');
  const { settings } = args.connection;
  const expectedError = args.values['expect-error'];
  // The stream `run --state` keeps this source's checkpoint under.
  const state = args.values.state ? fileStore(resolve(io.cwd, args.values.state)) : undefined;
  const stream = streamKey({ connector: args.connector.key, action: args.action, connectionId: prepared.connection.id, environment: prepared.environment, input: prepared.input });
  const checkpoint = prepared.action.direction === 'source' ? await state?.checkpoints.get(stream) : undefined;
  // Recording sends through fetch, where the recorder sees it; PLUGBOARD_ALLOW_NETWORK applies as for run.
  const transport = createTransport({ via: 'fetch', network: { allow: allowedNetwork(io.env) } });
  const result = await recordScenario({
    connector: args.connector,
    scenario: {
      name: scenario,
      action: args.action,
      input: args.input,
      environment: args.environment,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(settings || args.connection.id ? { connection: { ...(args.connection.id ? { id: args.connection.id } : {}), ...(settings ? { settings } : {}) } } : {}),
      ...(expectedError ? { expect: { error: expectedError } } : {}),
    },
    fixturesDir,
    baseUrl,
    credential: args.credential,
    transport,
  })
    .catch((error: unknown) => {
      if (error instanceof RecordingError && error.cause instanceof ConnectorError) {
        io.stderr.write(`${error.message}\n`);
        throw error.cause;
      }
      throw error;
    })
    .finally(() => transport.close());
  const { outcome } = result.fixture;
  if (state && 'checkpoint' in outcome && outcome.checkpoint !== undefined) await state.checkpoints.commit(stream, outcome.checkpoint);
  if ('records' in outcome) for (const record of outcome.records) writeJsonLine(io.stdout, record);
  const summary = 'error' in outcome ? `error ${outcome.error.code}` : `${outcome.records.length} records in ${outcome.pages} pages`;
  io.stderr.write(`recorded scenario '${scenario}' (${result.fixture.calls.length} calls, ${summary}) to ${result.fixturePath}\n`);
}
