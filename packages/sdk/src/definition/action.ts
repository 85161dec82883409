import type { z } from 'zod';
import type { ActionContext, SourceContext } from '../context.js';
import type { InputIssue } from '../errors.js';

export type Direction = 'source' | 'destination';
/** Who must approve a run: nobody, a reviewer before production runs, or a reviewer always. */
export type Approval = 'none' | 'production' | 'always';
/** `safe`: the call may be repeated automatically; `never`: a failure is reported, not repeated. */
export type RetryPolicy = 'safe' | 'never';
export type Environment = 'sandbox' | 'production';

/** One page of a source's records, with the checkpoint to resume after it. */
export interface Page<R = unknown, C = unknown> {
  records: R[];
  checkpoint?: C;
}

/** Incremental reading: records are read from a checkpoint on, in the order of a cursor field. */
export interface Incremental<C> {
  /** The record field whose value moves the checkpoint on (e.g. `updated_at`). */
  cursorField: string;
  /** Schema of the checkpoint; checked when a run starts from one and when a page emits one. */
  checkpoint?: z.ZodType<C>;
}

interface ActionCommon<I extends z.ZodType, E extends z.ZodType> {
  /** `resource.verb`, stable: it is the catalogue's operation key. */
  key: string;
  label: string;
  description?: string;
  /** The named data type (a zod schema with `.meta({ id })`) of the records or the result. */
  entity: E;
  input: I;
  /** Spends the customer's money or credits. Billable actions are never retried automatically. */
  billable?: boolean;
  /** Defaults: `safe` for sources, `never` for destinations. */
  retry?: RetryPolicy;
  /** Defaults to `none`; billable actions must ask for approval. */
  approval?: Approval;
  /** The rate budget the action's requests draw on; defaults to a budget named like the action, else `default`. */
  budget?: string;
  /** The longest wait for a rate limit this action accepts before failing with the wait in the error. */
  maxRetryAfterSeconds?: number;
  /** Timeout of each request, headers and body, in milliseconds. */
  timeoutMs?: number;
  /**
   * Checks of the validated input that depend on where the run goes (e.g. hosts
   * refused in production). They run with the schema's checks: before the
   * approval gate and before anything is sent.
   */
  check?: (input: z.output<I>, context: { environment: Environment }) => readonly InputIssue[];
}

export interface SourceAction<I extends z.ZodType = z.ZodType, E extends z.ZodType = z.ZodType, C = unknown>
  extends ActionCommon<I, E> {
  direction: 'source';
  incremental?: Incremental<C>;
  /** Yields pages of records; left out while the action is declared but not yet implemented. */
  read?: (ctx: SourceContext<C>, input: z.output<I>) => AsyncIterable<Page<z.input<E>, C>>;
}

export interface DestinationAction<I extends z.ZodType = z.ZodType, E extends z.ZodType = z.ZodType>
  extends ActionCommon<I, E> {
  direction: 'destination';
  /** Writes and returns the result; left out while the action is declared but not yet implemented. */
  write?: (ctx: ActionContext, input: z.output<I>) => Promise<z.input<E>>;
}

// biome-ignore lint/suspicious/noExplicitAny: a checkpoint type is the action's own; any action of any checkpoint type is an Action.
export type Action = SourceAction<z.ZodType, z.ZodType, any> | DestinationAction<z.ZodType, z.ZodType>;

/**
 * Declares one action. The definition is checked, with the connector's name in
 * every message, when `defineConnector` assembles the connector.
 */
export function defineAction<I extends z.ZodType, E extends z.ZodType, C = unknown>(
  action: SourceAction<I, E, C>,
): SourceAction<I, E, C>;
export function defineAction<I extends z.ZodType, E extends z.ZodType>(
  action: DestinationAction<I, E>,
): DestinationAction<I, E>;
export function defineAction(action: Action): Action {
  return Object.freeze({ ...action });
}

/** The retry policy in force: declared, or the default for the direction. */
export function retryPolicy(action: Pick<Action, 'retry' | 'direction' | 'billable'>): RetryPolicy {
  return action.retry ?? (action.direction === 'source' && !action.billable ? 'safe' : 'never');
}

export function approvalOf(action: Action): Approval {
  return action.approval ?? 'none';
}

/** True when a run in this environment needs an approval bound to its digest. */
export function needsApproval(action: Action, environment: Environment): boolean {
  const approval = approvalOf(action);
  return approval === 'always' || (approval === 'production' && environment === 'production');
}

export function isImplemented(action: Action): boolean {
  return action.direction === 'source' ? typeof action.read === 'function' : typeof action.write === 'function';
}
