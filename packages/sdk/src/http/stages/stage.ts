import type { Clock } from '../../clock.js';
import type { Environment } from '../../definition/environment.js';
import type { WriteGate } from '../budget-rules.js';
import type { HeaderReader } from '../headers.js';

/**
 * What passes through the stages of `ctx.http` (pipeline.ts): one call going down, its
 * answer coming back up. A stage gets the `Send` below it and returns its own, the way an
 * undici interceptor wraps a dispatch.
 */

/** One request on its way down. Stages below may change it (the redirect stage sends each hop as a new call). */
export interface Call {
  method: string;
  url: URL;
  /** Lower-case names. The credential is added only near the bottom, for the base URL's origin. */
  headers: Record<string, string>;
  body: string | undefined;
  /** `GET /items/abc`: method and path, redacted and cut to an excerpt, for errors, logs and events. */
  readonly operation: string;
  /** The rate budget the call draws on. */
  readonly budget: string | undefined;
  /** Aborts when the run is cancelled or the exchange runs out of time (set by the timeout stage). */
  signal: AbortSignal;
  /** Asked just before the request is written; when it says no, nothing is sent (set by the budget stage). */
  open?: WriteGate;
  /** A later hop of a redirect: its URL is the provider's, not one built from the base URL. */
  redirected?: boolean;
  /** The OAuth2 access token of this attempt (set below the host stages; the credential stage sends it). */
  accessToken?: string;
}

/** A whole answer: its status, its headers and its body as text. */
export interface Answer {
  status: number;
  headers: HeaderReader;
  text: string;
}

export type Send = (call: Call) => Promise<Answer>;

/** What the SDK's own stages name in the events they publish (and a run's log entries carry): the connector's and the action's keys. */
export type StageAbout = { readonly connector: string; readonly action: string };

/** What a host stage knows of the runs it serves: their connector, action, connection and environment (never a credential). */
export interface StageRun {
  connector: string;
  action: string;
  connectionId: string;
  environment: Environment;
  /** The transport's clock: a stage that waits or stamps time reads it. */
  clock: Clock;
}

/**
 * A stage a host adds to every run of a transport (`createHostTransport({ stages })`): called with the
 * `Send` below it when a connection's pipeline for an action is built, once for the runs on that
 * connection; returns the `Send` the stage above calls, for every attempt of every run.
 * @example const count: HttpStage = (next) => (call) => { calls += 1; return next(call); };
 */
export type HttpStage = (next: Send, run: StageRun) => Send;
