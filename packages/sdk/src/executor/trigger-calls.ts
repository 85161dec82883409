import { InvalidInputError } from '../errors.js';
import { passGate } from '../run.js';
import { prepareTriggerCall, type TriggerCall, type TriggerCalls, triggerCallKey } from '../trigger-calls.js';
import { executorFailure, stopIfCancelled } from './errors.js';
import { connectionInput, credentialFor, resolveHostConnection } from './host-connection.js';
import { runSettings } from './preparation.js';
import type { TriggerCallRequest } from './requests.js';
import { isLocal, runnerOf } from './runners.js';
import type { ExecutorSetup } from './setup.js';

/**
 * One lifecycle call of a connector's trigger (`prepareTriggerCall`), on a connection and its
 * credential as the host's resolvers give them, through the same pipeline as a run. A trigger's
 * signature and records are the connector's own code, which the host runs: a connector in a
 * plugin's own process has none at hand here, and is refused before anything is sent. The
 * secret a `subscribe` offers, and the request's own `secrets`, are redacted from the call's logs
 * and errors as the credential is.
 */
export async function callTrigger<C extends TriggerCall>(
  setup: ExecutorSetup,
  request: TriggerCallRequest<C>,
): Promise<TriggerCalls[C]['answer']> {
  const subject = `${request.connectorKey} ${triggerCallKey(request.trigger, request.call)}`;
  stopIfCancelled(request.signal, subject);
  const runner = runnerOf(setup.runners, request.connectorKey);
  if (!isLocal(runner))
    throw new InvalidInputError(subject, [
      { path: 'connectorKey', message: "runs in a plugin's own process, where triggers do not run yet" },
    ]);
  const connection = await resolveHostConnection(setup, runner, request);
  const prepared = prepareTriggerCall(runner.connector, request.trigger, request.call, {
    input: request.input,
    connection: connectionInput(connection),
    environment: request.environment ?? 'sandbox',
  });
  // A lifecycle call needs no approval: the gate lets it through as it is.
  const run = passGate(prepared, undefined, setup.clock.now());
  const credential = await credentialFor(setup, connection.id);
  stopIfCancelled(request.signal, subject);
  const settings = { ...runSettings(setup, request, credential), secrets: callSecrets(setup, request) };
  for await (const page of runner.run(run, settings)) return page.records[0] as TriggerCalls[C]['answer'];
  throw executorFailure('connector_failed', `${subject}: the call returned no answer`, 500);
}

/** The secrets the call's redaction hides besides the credential's: the host's, the request's and the one offered. */
function callSecrets(setup: ExecutorSetup, request: TriggerCallRequest): string[] {
  const offered =
    request.call === 'subscribe' ? (request.input as TriggerCalls['subscribe']['input']).secret : undefined;
  return [...(setup.secrets ?? []), ...(request.secrets ?? []), ...(typeof offered === 'string' ? [offered] : [])];
}
