import type { ApprovalDecision } from '../approval.js';
import type { Environment, Page } from '../definition/action.js';
import type { ExecutionEvent } from './events.js';
import type { TriggerCall, TriggerCalls } from '../trigger-calls.js';

export interface ExecuteRequest {
  connectorKey: string;
  action: string;
  connectionId: string;
  /** Default `sandbox`. */
  environment?: Environment;
  input?: unknown;
  /** Required when the action needs approval here. */
  approval?: ApprovalDecision;
  /**
   * Destinations: a repeated key returns the first result, `replayed` true, with no second provider
   * call. The action gets a key derived from it (`ctx.idempotencyKey`), which the kit sends in the
   * action's `idempotencyHeader` where it declares one.
   */
  idempotencyKey?: string;
  /** Sources: the name the checkpoint is kept under; default from connector, action, connection, environment and input. */
  stream?: string;
  signal?: AbortSignal;
  onProgress?: (event: ExecutionEvent) => void;
  /**
   * Sources: receives each page; the promise resolving is the host's acknowledgement, after
   * which the page's checkpoint is committed. A rejection stops the run with the checkpoint
   * of the previous page.
   */
  onPage?: (page: Page, info: { index: number }) => void | Promise<void>;
}

/** Which field's options to list, on which connection, narrowed by what a person typed. */
export interface OptionsRequest {
  connectorKey: string;
  /** The action whose input field it is. */
  action: string;
  /** The input field whose options are listed. */
  field: string;
  /** The connection listed on, as the host's resolvers give it. */
  connectionId: string;
  /** Text to narrow the options by; at most 200 characters. */
  search?: string;
  /** The `nextCursor` of the page before. */
  cursor?: string;
  /** The network policy the listing connects under; default `sandbox`. */
  environment?: Environment;
  signal?: AbortSignal;
}

/** Which connection to check, with which connector. */
export interface CheckRequest {
  connectorKey: string;
  connectionId: string;
  /** The network policy the check connects under; default `sandbox`. */
  environment?: Environment;
  signal?: AbortSignal;
}

/** One lifecycle call of a connector's trigger, on a connection, with what the call is given. */
export interface TriggerCallRequest<C extends TriggerCall = TriggerCall> {
  connectorKey: string;
  /** The trigger's key, as the connector declares it. */
  trigger: string;
  call: C;
  /** The connection called on, as the host's resolvers give it. */
  connectionId: string;
  input: TriggerCalls[C]['input'];
  /**
   * Further secrets of this call, kept out of its logs and errors besides the host's and the
   * credential's: the subscription's signing secret for a `renew` or `unsubscribe` (a `subscribe`'s
   * offered `input.secret` is added without being named here).
   */
  secrets?: readonly string[];
  /** The network policy the call connects under; default `sandbox`. */
  environment?: Environment;
  signal?: AbortSignal;
}
