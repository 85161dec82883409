import type { LiveCheck } from './check.js';
import type { OptionsPage } from './definition/options.js';
import type { ConnectorRunner } from './runner.js';
import { checkHostConnection } from './executor/connection-check.js';
import { runDestination } from './executor/destination.js';
import { stopIfCancelled } from './executor/errors.js';
import { listFieldOptions } from './executor/options-listing.js';
import type { ExecutionOutcome, PreparedExecution } from './executor/outcomes.js';
import { prepareExecution } from './executor/preparation.js';
import type { CheckRequest, ExecuteRequest, OptionsRequest, TriggerCallRequest } from './executor/requests.js';
import { type ExecutorOptions, setUpExecutor } from './executor/setup.js';
import { runSource } from './executor/source.js';
import { callTrigger } from './executor/trigger-calls.js';
import type { TriggerCall, TriggerCalls } from './trigger-calls.js';

/** An executor's entry points, bound to one setup: what a host calls to run an action, list a field's options and check a connection. */
export interface Executor {
  /** The connectors it runs, by key: each one's runner. */
  readonly runners: ReadonlyMap<string, ConnectorRunner>;
  /** Checks a request and gives the digest an approver must review; runs nothing. */
  prepare(request: ExecuteRequest): Promise<PreparedExecution>;
  /** Prepares the request once and runs it: a source through `runSource`, a destination through `runDestination`. */
  execute(request: ExecuteRequest): Promise<ExecutionOutcome>;
  /**
   * Runs the connector's connection check (`checkConnection`) on a connection and its credential
   * as the host's resolvers give them for a run, and answers the platform's LiveCheck. A connector
   * that runs in a plugin's own process is not checked there yet: `not_checked`.
   */
  checkConnection(request: CheckRequest): Promise<LiveCheck>;
  /**
   * One page of an input field's options (an action's `options`), listed on a connection and its
   * credential as the host's resolvers give them, through the same pipeline as a run, wherever the
   * connector runs. Values are the field's; a secret the provider echoed in a label is redacted.
   */
  listOptions(request: OptionsRequest): Promise<OptionsPage>;
  /**
   * One lifecycle call of a connector's trigger (`subscribe`, `renew`, `unsubscribe`) on a
   * connection and its credential as the host's resolvers give them, through the same pipeline as
   * a run; answers the call's checked result. A connector in a plugin's own process is refused.
   */
  callTrigger<C extends TriggerCall>(request: TriggerCallRequest<C>): Promise<TriggerCalls[C]['answer']>;
}

/**
 * Runs actions for a host: resolves the connection and the credential through the host's
 * resolvers (rule 10 enforced on the settings), validates the input, enforces approvals
 * (rule 9, the digest of exactly what runs), returns the first result again for a repeated
 * idempotency key without calling the provider, and commits a source's checkpoint only
 * after the host acknowledged the page (a stored checkpoint of an older version is migrated
 * and stored as the action's version then; one of a newer version is refused).
 *
 * Each job is an entry point of its own, taking the executor's setup (`setUpExecutor`): the
 * shared preparation (`prepareExecution`), a source's run (`runSource`), a destination's run
 * under its key (`runDestination`), a field's options (`listFieldOptions`), a connection's
 * check (`checkHostConnection`) and a trigger's lifecycle call (`callTrigger`). `createExecutor` composes them here, and only here.
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const setup = setUpExecutor(options);
  return {
    runners: setup.runners,
    prepare: (request) => prepareExecution(setup, request),
    checkConnection: (request) => checkHostConnection(setup, request),
    listOptions: (request) => listFieldOptions(setup, request),
    callTrigger: (request) => callTrigger(setup, request),
    async execute(request) {
      stopIfCancelled(request.signal, `${request.connectorKey} ${request.action}`);
      const ready = await prepareExecution(setup, request);
      if (ready.prepared.action.direction === 'source') return runSource(setup, request, ready);
      return runDestination(setup, request, ready);
    },
  };
}
