import type { Clock } from '../clock.js';
import type { ResolvedConnection } from '../connection.js';
import type { Action } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import type { Environment } from '../definition/environment.js';
import type { AppliedAuth } from '../http/auth.js';
import { type ConnectionRoute, type ConnectionStages, connectionStages } from '../http/pipeline.js';
import type { ClientRoute } from '../http/client.js';
import type { TransportParts } from '../http/transport.js';
import type { Logger, LogLevel, LogSink } from '../log.js';
import type { Redactor } from '../secrets.js';

/**
 * What the runs on one connection share: for each action, the stages from the host's down to the
 * transport (pipeline.ts), the budget they draw on looked up once, and the names the run's log
 * and errors carry. A connection whose credential goes as a fixed header or query parameter is
 * wired once per transport, connector, credential (its shared redactor), connection and
 * environment, and kept for the runs that come next; one whose credential is applied per request
 * by something bound to the run (a signer, whose signatures go to the run's own redactor; an
 * OAuth2 token lifecycle, which logs to the run's log) is wired for its run.
 */

/** One action's share of a connection's wiring. */
export interface ActionWiring extends ConnectionStages, ClientRoute {
  /** The logger the latest run made, which the next run that logs alike uses too (run/start.ts). */
  logger?: SharedLogger;
}

/** A logger holds nothing of a run's own: runs with the same sink, level and clock share one. */
export interface SharedLogger {
  readonly sink: LogSink;
  readonly level: LogLevel;
  readonly clock: Clock;
  readonly log: Logger;
}

/** A connection's wiring: its stages per action. */
export class Wiring {
  private readonly actions = new Map<Action, ActionWiring>();

  constructor(private readonly route: ConnectionRoute) {}

  for(action: Action): ActionWiring {
    let wired = this.actions.get(action);
    if (!wired) {
      const { route } = this;
      const stages = connectionStages(route, action);
      const subject = `${stages.about.connector} ${stages.about.action}`;
      const { baseUrl, redactor } = route;
      wired = { ...stages, subject, baseUrl, redactor, clock: route.transport.clock, logger: undefined };
      this.actions.set(action, wired);
    }
    return wired;
  }
}

/** What a run's connection is wired from. */
export interface WiringRoute {
  transport: TransportParts;
  connector: Connector;
  connection: ResolvedConnection;
  environment: Environment;
  redactor: Redactor;
}

/** How many connections are kept per transport and credential (its redactor). */
const CONNECTIONS_KEPT = 16;

/** A kept wiring, and what it was made for. */
interface Kept {
  connector: Connector;
  connectionId: string;
  baseUrl: string;
  environment: Environment;
  schemeId: string;
  wiring: Wiring;
}

// Weak on the transport and the credential's redactor: either one no longer used takes its wirings with it.
const kept = new WeakMap<TransportParts, WeakMap<Redactor, Kept[]>>();

/** The wiring kept for this connection with this credential's shared redactor, if any (no route object is made for the look). */
export function keptWiring(
  transport: TransportParts,
  redactor: Redactor,
  connector: Connector,
  connection: ResolvedConnection,
  environment: Environment,
): Wiring | undefined {
  const list = kept.get(transport)?.get(redactor);
  if (!list) return undefined;
  // A credential serves one connection or a few: the kept ones are compared, not hashed.
  for (const entry of list) {
    if (
      entry.connector === connector &&
      entry.connectionId === connection.id &&
      entry.baseUrl === connection.baseUrl &&
      entry.environment === environment &&
      entry.schemeId === connection.scheme.id
    )
      return entry.wiring;
  }
  return undefined;
}

/**
 * A connection wired now with what its credential adds (`auth`), and kept for the next runs
 * when `keep` (its redactor is the credential's shared one, so not a signer's) and the credential
 * goes on each request as it is: a token source belongs to its run.
 */
export function wire(route: WiringRoute, auth: AppliedAuth, keep: boolean): Wiring {
  const { transport, connector, connection, environment, redactor } = route;
  const { id: connectionId, baseUrl } = connection;
  const wiring = new Wiring({ transport, connector, connectionId, environment, baseUrl, auth, redactor });
  if (!keep || auth.type !== 'request') return wiring;
  let byRedactor = kept.get(transport);
  if (!byRedactor) kept.set(transport, (byRedactor = new WeakMap()));
  let list = byRedactor.get(redactor);
  if (!list) byRedactor.set(redactor, (list = []));
  if (list.length >= CONNECTIONS_KEPT) list.shift();
  list.push({ connector, connectionId, baseUrl, environment, schemeId: connection.scheme.id, wiring });
  return wiring;
}
