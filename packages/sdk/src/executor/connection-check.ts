import { type LiveCheck, checkConnection } from '../check.js';
import { connectionInput, resolveHostConnection } from './host-connection.js';
import { hostSettings } from './preparation.js';
import type { CheckRequest } from './requests.js';
import { isLocal, runnerOf } from './runners.js';
import type { ExecutorSetup } from './setup.js';

/**
 * Runs the connector's connection check (`checkConnection`) on a connection and its credential
 * as the host's resolvers give them for a run, and answers the platform's LiveCheck. A connector
 * that runs in a plugin's own process is not checked there yet: `not_checked`.
 */
export async function checkHostConnection(setup: ExecutorSetup, request: CheckRequest): Promise<LiveCheck> {
  const runner = runnerOf(setup.runners, request.connectorKey);
  const connection = await resolveHostConnection(setup, runner, request);
  if (!isLocal(runner)) {
    return {
      connectionId: connection.id,
      state: 'not_checked',
      current: false,
      checkedAt: null,
      expiresAt: null,
      summary: `${runner.name} runs in a plugin's own process, where connection checks do not run yet`,
      fixHint: null,
    };
  }
  return checkConnection(runner.connector, {
    connection: connectionInput(connection),
    environment: request.environment ?? 'sandbox',
    credential: () => setup.resolveCredential(connection.id),
    ...(request.signal ? { signal: request.signal } : {}),
    ...hostSettings(setup),
  });
}
