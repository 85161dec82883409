import type { ResolvedConnection } from '../connection.js';
import type { Action } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import type { Environment } from '../definition/environment.js';
import type { AppliedAuth } from '../http/auth.js';
import { type ConnectionRoute, connectionSend } from '../http/pipeline.js';
import type { Send } from '../http/stages/stage.js';
import type { Transport } from '../http/transport.js';
import type { Redactor } from '../secrets.js';

/**
 * What the runs on one connection share: for each action, the stages from the host's down to the
 * transport (pipeline.ts), the budget they draw on looked up once. A connection whose credential
 * goes as a fixed header or query parameter is wired once per transport, connector, credential
 * (its shared redactor) and connection, and kept for the runs that come next; one whose
 * credential changes per request (a signer's signatures, an OAuth2 token lifecycle bound to the
 * run) is wired for its run.
 */

/** The stages of a connection's calls, per action. */
export interface Wiring {
  sendFor(action: Action): Send;
}

/** What a run's connection is wired from. */
export interface WiringRequest {
  transport: Transport;
  connector: Connector;
  connection: ResolvedConnection;
  environment: Environment;
  redactor: Redactor;
  /** True when the redactor is the credential's shared one (`redactorFor`): only then is the wiring kept. */
  sharedRedactor: boolean;
  /** What the credential stage adds: asked only when no wiring is kept for the connection. */
  auth(): AppliedAuth;
}

/** How many connections are kept per transport, connector and credential. */
const CONNECTIONS_KEPT = 16;

// Weak all the way down to the credential's redactor: a transport, connector or credential no longer used takes its wirings with it.
const kept = new WeakMap<Transport, WeakMap<Connector, WeakMap<Redactor, Map<string, Wiring>>>>();

/** The wiring of a run's connection: kept, or made now. */
export function wiringOf(request: WiringRequest): Wiring {
  const { transport, connector, connection, environment, redactor } = request;
  const key = `${connection.id}\u0000${connection.baseUrl}\u0000${environment}\u0000${connection.scheme.id}`;
  const connections = request.sharedRedactor ? keptFor(transport, connector, redactor) : undefined;
  const found = connections?.get(key);
  if (found) return found;
  const auth = request.auth();
  const wiring = new ActionSends({
    transport,
    connector,
    connectionId: connection.id,
    environment,
    baseUrl: connection.baseUrl,
    auth,
    redactor,
  });
  // A token source or a signer belongs to its run: only a fixed header or query parameter is kept.
  if (connections && (auth.type === 'header' || auth.type === 'query')) {
    if (connections.size >= CONNECTIONS_KEPT) connections.delete(connections.keys().next().value!);
    connections.set(key, wiring);
  }
  return wiring;
}

function keptFor(transport: Transport, connector: Connector, redactor: Redactor): Map<string, Wiring> {
  let byConnector = kept.get(transport);
  if (!byConnector) kept.set(transport, (byConnector = new WeakMap()));
  let byRedactor = byConnector.get(connector);
  if (!byRedactor) byConnector.set(connector, (byRedactor = new WeakMap()));
  let connections = byRedactor.get(redactor);
  if (!connections) byRedactor.set(redactor, (connections = new Map()));
  return connections;
}

/** One connection's sends, made for each action on its first call. */
class ActionSends implements Wiring {
  private readonly sends = new Map<Action, Send>();

  constructor(private readonly route: ConnectionRoute) {}

  sendFor(action: Action): Send {
    let send = this.sends.get(action);
    if (!send) this.sends.set(action, (send = connectionSend(this.route, action)));
    return send;
  }
}
