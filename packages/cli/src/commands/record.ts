import { join, resolve } from 'node:path';
import { type Connector, ConnectorError, prepareRun } from '@plugboard/sdk';
import { RecordingError, recordScenario } from '@plugboard/testing';
import { parseActionArgs } from '../action-args.js';
import { type CliIo, writeJsonLine } from '../io.js';
import { packageFolder } from '../pack.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard record`: the same run as `plugboard run`, recorded through the
 * testing kit (secrets redacted before anything is written) into the
 * connector's `test/fixtures/<scenario>.json`. A failure is recorded only when
 * `--expect-error CODE` says the scenario is about it; any other failure
 * writes nothing and is reported like a failed run.
 */
export async function recordCommand(argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>): Promise<void> {
  const args = await parseActionArgs(argv, { scenario: { type: 'string' }, fixtures: { type: 'string' }, 'expect-error': { type: 'string' } }, async () => pack, io);
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
  const result = await recordScenario({
    connector: args.connector,
    scenario: {
      name: scenario,
      action: args.action,
      input: args.input,
      environment: args.environment,
      ...(settings || args.connection.id ? { connection: { ...(args.connection.id ? { id: args.connection.id } : {}), ...(settings ? { settings } : {}) } } : {}),
      ...(expectedError ? { expect: { error: expectedError } } : {}),
    },
    fixturesDir,
    baseUrl,
    credential: args.credential,
  }).catch((error: unknown) => {
    if (error instanceof RecordingError && error.cause instanceof ConnectorError) {
      io.stderr.write(`${error.message}\n`);
      throw error.cause;
    }
    throw error;
  });
  const { outcome } = result.fixture;
  if ('records' in outcome) for (const record of outcome.records) writeJsonLine(io.stdout, record);
  const summary = 'error' in outcome ? `error ${outcome.error.code}` : `${outcome.records.length} records in ${outcome.pages} pages`;
  io.stderr.write(`recorded scenario '${scenario}' (${result.fixture.calls.length} calls, ${summary}) to ${result.fixturePath}\n`);
}
