import { type ConnectionInput, checkConnectionSettings } from '../connection.js';
import type { ConnectionCredential } from '../credentials.js';
import type { Environment } from '../definition/action.js';
import { ConnectionConfigError, ConnectorError } from '../errors.js';
import type { ConnectorRunner } from '../runner.js';
import type { ExecutorSetup, HostConnection } from './setup.js';

/**
 * The connection the host's resolver gives for `connectionId`, checked: the one asked for, its
 * settings free of secrets (rule 10), and allowed in the environment the request runs in.
 */
export async function resolveHostConnection(
  setup: Pick<ExecutorSetup, 'resolveConnection'>,
  runner: ConnectorRunner,
  request: { connectionId: string; environment?: Environment },
): Promise<HostConnection> {
  const connection = await setup.resolveConnection(request.connectionId);
  if (!connection || typeof connection !== 'object') {
    throw new ConnectionConfigError(`connection ${request.connectionId}: the host's resolver returned no connection`);
  }
  if (connection.id !== request.connectionId) {
    throw new ConnectionConfigError(
      `connection ${request.connectionId}: the host's resolver returned connection ${JSON.stringify(connection.id)}`,
    );
  }
  // Rule 10: secrets come only from the credential resolver, never from settings.
  try {
    checkConnectionSettings(connection.settings ?? {});
  } catch (error) {
    if (error instanceof ConnectorError) error.message = `connection ${connection.id}: ${error.message}`;
    throw error;
  }
  const environment = request.environment ?? 'sandbox';
  if (connection.environment !== undefined && connection.environment !== environment) {
    throw new ConnectionConfigError(
      `connection ${connection.id} is a ${connection.environment} connection; it cannot run ${runner.key} in ${environment}`,
    );
  }
  return connection;
}

/** The connection as a run is given it: id, base URLs and settings. */
export function connectionInput(connection: HostConnection): ConnectionInput {
  return {
    id: connection.id,
    ...(connection.baseUrl === undefined ? {} : { baseUrl: connection.baseUrl }),
    ...(connection.authBaseUrl === undefined ? {} : { authBaseUrl: connection.authBaseUrl }),
    ...(connection.settings ? { settings: connection.settings } : {}),
  };
}

/** The connection's credential from the host's resolver; none at all is `invalid_connection`. */
export async function credentialFor(
  setup: Pick<ExecutorSetup, 'resolveCredential'>,
  connectionId: string,
): Promise<ConnectionCredential> {
  const credential = await setup.resolveCredential(connectionId);
  if (credential === undefined || credential === null || credential === '') {
    throw new ConnectionConfigError(`connection ${connectionId}: the host's credential resolver returned none`);
  }
  return credential;
}
