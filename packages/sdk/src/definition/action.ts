import type { z } from 'zod';
import type { ActionContext, SourceContext } from '../context.js';
import type { InputIssue } from '../errors.js';
import type { Paginator } from '../paginate/paginator.js';
import type { Environment } from './environment.js';
import type { FieldOptions } from './options.js';
import type { Page } from './page.js';

export type { Environment, Page };

/**
 * How an action's results come back: a `source` yields pages of records (`read`),
 * a `destination` returns one result (`write`). It says nothing of what the call
 * does to the world; that is the action's {@link Effect}.
 */
export type Direction = 'source' | 'destination';
/** Who must approve a run: nobody, a reviewer before production runs, or a reviewer always. */
export type Approval = 'none' | 'production' | 'always';
/** `safe`: the call may be repeated automatically; `never`: a failure is reported, not repeated. */
export type RetryPolicy = 'safe' | 'never';

/**
 * What a call does to the world at the provider.
 *
 * - `'read'`: it reads only; calling it changes nothing (a list, a lookup, a quote).
 * - `{ writes: true, idempotent, destructive }`: it changes something. `idempotent`: repeating it
 *   with the same input has no further effect (a PUT of a whole record, a delete by id);
 *   `destructive`: it deletes or overwrites data that was there before.
 *
 * @example effect: 'read'
 * @example effect: { writes: true, idempotent: false, destructive: false } // creates a record
 * @example effect: { writes: true, idempotent: true, destructive: true } // replaces or deletes one
 */
export type Effect =
  | 'read'
  | {
      /** The call changes something at the provider; a call that does not is `effect: 'read'`. */
      writes: true;
      /**
       * Repeating the call with the same input has no further effect, so a failed call may be repeated.
       * @example idempotent: true // a PUT of a whole record, a delete by id
       * @example idempotent: false // a POST that creates a record each time
       */
      idempotent: boolean;
      /**
       * The call deletes or overwrites data that was there before (MCP clients ask before calling it).
       * @example destructive: true // a delete, a replace, an edit in place
       * @example destructive: false // a create, an append
       */
      destructive: boolean;
    };

/** An action's effect with every fact spelled out, as the catalogue publishes it. */
export interface EffectFacts {
  writes: boolean;
  /** True for reads: reading again has no further effect. */
  idempotent: boolean;
  destructive: boolean;
}

/** The tool hints of the Model Context Protocol, for an MCP server that offers the action as a tool. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Always true: every connector action talks to a provider outside the host. */
  openWorldHint: boolean;
}

/** Incremental reading: records are read from a checkpoint on, in the order of a cursor field. */
export interface Incremental<C> {
  /**
   * The record field whose value moves the checkpoint on; must be a field of the entity.
   * @example cursorField: 'updated_at'
   */
  cursorField: string;
  /**
   * Schema of the checkpoint; checked when a run starts from one and when a page emits one.
   * A schema alone is version 1; a changed shape gets the next version and a migration from
   * each older one (see {@link VersionedCheckpoint}).
   * @example checkpoint: z.object({ updated_after: z.string() })
   * @example checkpoint: { version: 2, schema: z.object({ cursor: z.string() }), migrate: { 1: (old) => ({ cursor: old.updated_after }) } }
   * @default unchecked: any JSON value is accepted
   */
  checkpoint?: z.ZodType<C> | VersionedCheckpoint<C>;
  /**
   * The record field that tells records of one cursor value apart; the checkpoint keeps the ids
   * read at its newest value (`ctx.pages`).
   * @default 'id'
   */
  tieBreaker?: string;
  /**
   * How the provider is asked for records from the checkpoint on (`ctx.pages`): the query
   * parameter, the format of its value, and how far before the checkpoint to ask (for a provider
   * whose filter may leave its bound out; the records read again are dropped).
   * @example newerThan: { query: 'updated_after', format: 'iso', earlierMs: 1 }
   * @default not asked: the provider lists from the start and the records already read are dropped
   */
  newerThan?: {
    query: string;
    /**
     * `as-is`: the checkpoint's value as the provider wrote it (a plain number or id, any text);
     * the formats of a time: `iso`, an ISO 8601 instant in UTC; `unix`, seconds since the epoch;
     * `unix-ms`, milliseconds. A cursor of ISO 8601 instants takes any of the three; a number
     * cursor is in the unit `unix` or `unix-ms` names (`iso` is refused for it).
     * @default 'as-is'
     */
    format?: 'as-is' | 'iso' | 'unix' | 'unix-ms';
    /**
     * How many milliseconds before the checkpoint to ask from, for a provider whose filter leaves
     * its bound out or that may list a record later with a time already passed (the records read
     * again are dropped). `unix` asks whole seconds earlier, rounded up (1 ms is 1 s). Needs a
     * format that is a time: refused with `as-is`.
     * @example earlierMs: 1
     * @default 0
     */
    earlierMs?: number;
  };
  /**
   * The order the provider lists in. Newest first: `ctx.pages` holds the new checkpoint back
   * until the read reaches what the last run had read (or the last page), and stops paging there.
   * @default 'oldest-first'
   */
  order?: 'oldest-first' | 'newest-first';
}

/**
 * A checkpoint schema with a version, for a connector whose checkpoint changed shape: a run
 * that finds a checkpoint of an older version migrates it (`migrate[n]` turns version n into
 * version n + 1) and checks the result against `schema`; one of a newer version is refused.
 */
export interface VersionedCheckpoint<C> {
  /** A whole number from 1 to 1000; a checkpoint stored without a version is version 1. */
  version: number;
  schema: z.ZodType<C>;
  /** One function per older version, from 1 to `version - 1`: its checkpoint, made the next version's. */
  // biome-ignore lint/suspicious/noExplicitAny: an older version's shape is no longer declared.
  migrate: Readonly<Record<number, (checkpoint: any) => unknown>>;
}

/** How a provider is asked for records from a cursor value on (`Incremental.newerThan`). */
export type NewerThan = NonNullable<Incremental<unknown>['newerThan']>;

/** What every action declares, source or destination: its key, label, input and answer schemas, effect, retries and approval. */
export interface ActionCommon<I extends z.ZodType, E extends z.ZodType> {
  /**
   * `resource.verb` in lower snake case, stable: it is the catalogue's operation key and flows call it.
   * @example key: 'projects.list'
   */
  key: string;
  /**
   * A short name people read in the catalogue.
   * @example label: 'List projects'
   */
  label: string;
  /**
   * What the action does, for the catalogue (Markdown). Say what it costs and what it refuses.
   * @example description: 'Lists the projects of the drive, newest first.'
   */
  description?: string;
  /**
   * The named data type of the records (a source) or of the result (a destination): a zod schema
   * with `.meta({ id })`.
   * @example entity: z.object({ id: z.string(), name: z.string() }).meta({ id: 'Project' })
   */
  entity: E;
  /**
   * The input schema; the input is checked against it, defaults applied, before anything is sent.
   * @example input: z.object({ limit: z.number().int().min(1).max(100).default(50) })
   */
  input: I;
  /**
   * What the call does to the world (see {@link Effect}); retries and the MCP tool hints follow from it.
   *
   * A source reads only unless it says otherwise. A destination that says nothing is read the
   * safest way: a destructive write that is not idempotent, so it is never retried and an MCP
   * client asks before calling it (the same reading MCP gives a tool without hints). Saying less
   * than the truth costs a confirmation; saying more could repeat a payment or lose data.
   * @example effect: 'read'
   * @example effect: { writes: true, idempotent: false, destructive: false }
   * @default 'read' for a source; { writes: true, idempotent: false, destructive: true } for a destination
   */
  effect?: Effect;
  /**
   * Spends the customer's money or credits. A billable action is never retried automatically and
   * is approved before production runs (`approval` may make that `'always'`, never `'none'`).
   * It may read only (a paid lookup) or write.
   * @example billable: true
   * @default false
   */
  billable?: boolean;
  /**
   * Overrides the retry the effect gives: `'safe'` for a write that is safe to repeat although not
   * idempotent (the provider deduplicates it), `'never'` for a read that should not be repeated.
   * Refused as `'safe'` on a billable action.
   * @example retry: 'safe'
   * @default 'safe' when the action reads only or its write is idempotent and it is not billable; else 'never'
   */
  retry?: RetryPolicy;
  /**
   * Who approves a run before it goes: nobody, a reviewer before production runs, or a reviewer always.
   * @example approval: 'always'
   * @default 'production' for a billable action; else 'none'
   */
  approval?: Approval;
  /**
   * The rate budget (a key of the connector's `rateLimits`) the action's requests draw on.
   * @example budget: 'jobs'
   * @default the budget named like the action's key if declared, else `default` if declared, else none
   */
  budget?: string;
  /**
   * The longest wait for a rate limit (Retry-After) this action accepts; a longer one fails with the
   * wait in the error instead of holding the run.
   * @example maxRetryAfterSeconds: 30
   * @default the host's setting
   */
  maxRetryAfterSeconds?: number;
  /**
   * Timeout of each request, headers and body, in milliseconds.
   * @example timeoutMs: 120_000
   * @default the host's setting
   */
  timeoutMs?: number;
  /**
   * Checks of the validated input that depend on where the run goes (e.g. hosts
   * refused in production). They run with the schema's checks: before the
   * approval gate and before anything is sent.
   * @example check: (input, { environment }) => environment === 'production' && isPrivate(input.url) ? [{ path: ['url'], message: 'a private host' }] : []
   */
  check?: (input: z.output<I>, context: { environment: Environment }) => readonly InputIssue[];
  /**
   * Dynamic options of input fields, by field name (a string or number field): where they come
   * from, and `list(ctx, { search, cursor })`, run through the same pipeline as the action. A
   * value's type is checked against the field's schema when the options are listed.
   * @example options: { project_id: { from: "the drive's projects", searchable: true, list: listProjects } }
   * @default no field has options
   */
  options?: { [K in keyof z.input<I> & string]?: FieldOptions };
}

/** An action that reads pages of records (`read(ctx, input)` or a declared `paginator`), optionally resuming from a checkpoint. */
export interface SourceAction<I extends z.ZodType = z.ZodType, E extends z.ZodType = z.ZodType, C = unknown>
  extends ActionCommon<I, E> {
  /** A source yields pages of records through `read`. */
  direction: 'source';
  /**
   * Reads from a checkpoint on, in the order of a cursor field; each page may move the checkpoint.
   * @example incremental: { cursorField: 'updated_at', checkpoint: z.object({ updated_after: z.string() }) }
   * @default not incremental: every run reads from the start
   */
  incremental?: Incremental<C>;
  /**
   * How the action's list pages (see `cursorPaginator` and its kin): `ctx.pages(request)` reads
   * with it, and with the incremental declaration's watermark. Checked at definition.
   * @example paginator: cursorPaginator({ records: 'data', cursor: { from: 'next_cursor', to: { query: 'cursor' } } })
   */
  paginator?: Paginator;
  /** Yields pages of records; left out while the action is declared but not yet implemented. */
  read?: (ctx: SourceContext<C>, input: z.output<I>) => AsyncIterable<Page<z.input<E>, C>>;
}

/** An action that sends one request (or a few) and answers one result: `run(ctx, input)`. */
export interface DestinationAction<I extends z.ZodType = z.ZodType, E extends z.ZodType = z.ZodType>
  extends ActionCommon<I, E> {
  /** A destination returns one result through `write`. */
  direction: 'destination';
  /**
   * The request header in which the provider takes an idempotency key and deduplicates on it
   * (its documentation says so). A run with an idempotency key then sends the key
   * (`ctx.idempotencyKey`) in this header with every request of the action that is not a GET,
   * HEAD or OPTIONS (a request that sets the header itself keeps its own value); the pipeline
   * retries such a request when its answer was lost, with the same key, and a run whose
   * retries ran out leaves its key free to be run again, not `uncertain`. A billable action,
   * or one that says `retry: 'never'`, is still not retried by the pipeline: its caller repeats
   * the run with the same key.
   * @example idempotencyHeader: 'Idempotency-Key'
   * @default none: the key stays with the host, and a write whose answer was lost is `uncertain`
   */
  idempotencyHeader?: string;
  /** Makes the call and returns the result; left out while the action is declared but not yet implemented. */
  write?: (ctx: ActionContext, input: z.output<I>) => Promise<z.input<E>>;
}

/** Any action a connector declares: a source (pages of records) or a destination (one result). */
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

const READS: EffectFacts = Object.freeze({ writes: false, idempotent: true, destructive: false });
const UNSAID_WRITE: EffectFacts = Object.freeze({ writes: true, idempotent: false, destructive: true });

export type Declared = Pick<Action, 'direction' | 'effect'>;

/** The action's effect, every fact spelled out: declared, or the default for its direction. */
export function effectOf(action: Declared): EffectFacts {
  const { effect } = action;
  if (effect === 'read') return READS;
  if (effect !== undefined) return { writes: true, idempotent: effect.idempotent, destructive: effect.destructive };
  return action.direction === 'source' ? READS : UNSAID_WRITE;
}

/**
 * The retry policy in force: declared, else `never` for a billable action, else what the effect
 * allows (reads and idempotent writes may be repeated; other writes may not).
 */
export function retryPolicy(action: Declared & Pick<Action, 'retry' | 'billable'>): RetryPolicy {
  if (action.retry !== undefined) return action.retry;
  if (action.billable) return 'never';
  return effectOf(action).idempotent ? 'safe' : 'never';
}

/** The approval in force: declared, else `production` for a billable action, else `none`. */
export function approvalOf(action: Pick<Action, 'approval' | 'billable'>): Approval {
  return action.approval ?? (action.billable ? 'production' : 'none');
}

/** True when a run in this environment needs an approval bound to its digest. */
export function needsApproval(action: Pick<Action, 'approval' | 'billable'>, environment: Environment): boolean {
  const approval = approvalOf(action);
  return approval === 'always' || (approval === 'production' && environment === 'production');
}

/** The Model Context Protocol tool hints of the action, from its effect. */
export function annotationsOf(action: Declared): ToolAnnotations {
  const effect = effectOf(action);
  return {
    readOnlyHint: !effect.writes,
    destructiveHint: effect.destructive,
    idempotentHint: effect.idempotent,
    openWorldHint: true,
  };
}

export function isImplemented(action: Action): boolean {
  return action.direction === 'source' ? typeof action.read === 'function' : typeof action.write === 'function';
}
