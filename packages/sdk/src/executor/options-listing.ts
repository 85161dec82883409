import type { OptionsPage } from '../definition/options.js';
import { checkedOptionsPage, OPTIONS_RETRY } from '../options.js';
import { passGate } from '../run.js';
import { executorFailure, stopIfCancelled } from './errors.js';
import { connectionInput, credentialFor, resolveHostConnection } from './host-connection.js';
import { runSettings } from './preparation.js';
import type { OptionsRequest } from './requests.js';
import { isLocal, runnerOf } from './runners.js';
import type { ExecutorSetup } from './setup.js';

/**
 * One page of an input field's options (an action's `options`), listed on a connection and its
 * credential as the host's resolvers give them, through the same pipeline as a run, wherever the
 * connector runs. Values are the field's; a secret the provider echoed in a label is redacted; a
 * plugin's page is checked again here (`schema_mismatch`).
 */
export async function listFieldOptions(setup: ExecutorSetup, request: OptionsRequest): Promise<OptionsPage> {
  const subject = `${request.connectorKey} ${request.action} options for ${request.field}`;
  stopIfCancelled(request.signal, subject);
  const runner = runnerOf(setup.runners, request.connectorKey);
  const connection = await resolveHostConnection(setup, runner, request);
  const prepared = await runner.prepareOptions(request.action, request.field, {
    query: {
      ...(request.search === undefined ? {} : { search: request.search }),
      ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
    },
    connection: connectionInput(connection),
    environment: request.environment ?? 'sandbox',
  });
  // A listing reads only and needs no approval: the gate lets it through as it is.
  const run = passGate(prepared, undefined, setup.clock.now());
  const credential = await credentialFor(setup, connection.id);
  stopIfCancelled(request.signal, subject);
  const retry = { ...setup.retry, ...OPTIONS_RETRY };
  for await (const page of runner.run(run, { ...runSettings(setup, request, credential), retry })) {
    const listed = page.records[0];
    // A page of this process was checked against the field's schema; a plugin's is checked again here.
    return isLocal(runner) ? (listed as OptionsPage) : checkedOptionsPage(listed, subject);
  }
  throw executorFailure('connector_failed', `${subject}: the listing returned no page`, 500);
}
