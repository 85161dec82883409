import { replayScenario } from '@plugboard/testing';
import { fixturesFolder } from '../fixtures-folder.js';
import { writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard replay [connector] --scenario NAME [--fixtures DIR]`: runs a recorded scenario
 * again from its fixture with the network closed, as the standard suite does, and prints its
 * records. A request the recording does not hold, or a recorded one not made, fails it.
 */
export async function replayCommand({ args, values, io, messages, findConnector }: Invocation): Promise<void> {
  const scenario = values.scenario;
  if (typeof scenario !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/i.test(scenario)) {
    throw new UsageError('--scenario <name> is required: the recorded scenario, e.g. --scenario projects-first');
  }
  const found = await findConnector({
    key: args[0],
    connector: values.connector as string | undefined,
    plugins: values.plugins as string | undefined,
  });
  const fixturesDir = fixturesFolder(values.fixtures as string | undefined, found.dir, found.connector.key, io.cwd);
  const result = await replayScenario({ connector: found.connector, scenario, fixturesDir });
  for (const record of result.records) writeJsonLine(io.stdout, record);
  const outcome = result.error
    ? `error ${result.error.code}`
    : `${result.records.length} records in ${result.pages} pages`;
  messages.say({
    level: 'info',
    message: `replayed scenario '${scenario}' from ${result.fixturePath} with the network closed (${result.calls} calls, ${outcome})`,
  });
}
