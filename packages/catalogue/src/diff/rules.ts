import type { SchemaChangeKind } from '../schema-diff.js';

/**
 * The verdict of every kind of catalogue change and the rule behind it (schema kinds: see
 * `SCHEMA_RULES`, whose verdict depends on whether the schema is read by consumers or written
 * by callers), and the shape of a change and of a diff.
 */

export const CATALOGUE_RULES = {
  'connector-removed': { breaking: true, rule: 'every user of the connector loses it' },
  'operation-removed': { breaking: true, rule: 'flows calling the operation stop working' },
  'operation-renamed': { breaking: true, rule: 'flows call the operation by its key' },
  'mode-changed': { breaking: true, rule: 'a source and a destination are used in different places of a flow' },
  'entity-changed': { breaking: true, rule: 'consumers expect records of the old data type' },
  'approval-turned-off': { breaking: true, rule: 'a check the workspace relies on disappears' },
  'approval-turned-on': { breaking: true, rule: 'unattended runs now stop for a person to approve' },
  'billable-turned-on': { breaking: true, rule: 'runs now cost money where they did not' },
  // Effects: a change towards more effect breaks (what was safe to call, or to repeat, no longer is).
  'writes-turned-on': { breaking: true, rule: 'calls that changed nothing at the provider now change data there' },
  'idempotent-turned-off': {
    breaking: true,
    rule: 'repeating a call with the same input now acts again, and a failed call is no longer retried',
  },
  'destructive-turned-on': { breaking: true, rule: 'calls may now delete or overwrite data that was there before' },
  'rate-budget-tightened': {
    breaking: true,
    rule: 'a lower limit, a longer period or a shared scope: runs that fit today may be throttled',
  },
  'authentication-changed': { breaking: true, rule: 'existing connections were made for the old authentication' },
  'input-options-removed': {
    breaking: true,
    rule: "a host that lists the field's options (a picker) is refused: the field no longer declares them",
  },
  'checkpoint-changed-unmigrated': {
    breaking: true,
    rule: 'the checkpoints runs kept have the old shape and are refused: a new checkpoint version with a migration keeps them',
  },
  'checkpoint-version-lowered': {
    breaking: true,
    rule: 'a checkpoint the newer version kept is refused: the stream stops until it is reset',
  },
  'idempotency-key-dropped': {
    breaking: true,
    rule: "the provider no longer gets the run's idempotency key: a write whose answer was lost waits for an operator instead of being sent again",
  },
  'connector-added': { breaking: false, rule: 'nobody depends on it yet' },
  'operation-added': { breaking: false, rule: 'nobody calls it yet' },
  'billable-turned-off': { breaking: false, rule: 'runs cost less' },
  'writes-turned-off': { breaking: false, rule: 'the call reads only now: every use that was safe stays safe' },
  'idempotent-turned-on': { breaking: false, rule: 'repeating a call has no further effect now' },
  'destructive-turned-off': { breaking: false, rule: 'the call no longer deletes or overwrites data' },
  'rate-budget-loosened': {
    breaking: false,
    rule: 'a higher limit or a shorter period lets every run through that passed before',
  },
  'input-options-added': { breaking: false, rule: 'a host may offer a picker now; every value taken before still is' },
  'input-options-changed': {
    breaking: false,
    rule: 'the options are still values of the field; only where they are listed from, or who applies the search, changed',
  },
  'checkpoint-migrated': { breaking: false, rule: 'runs resume from the checkpoints kept before, migrated' },
  'idempotency-key-sent': {
    breaking: false,
    rule: "the provider deduplicates on the run's idempotency key now: a write whose answer was lost is sent again with it",
  },
} as const satisfies Record<string, { breaking: boolean; rule: string }>;

export type CatalogueKind = keyof typeof CATALOGUE_RULES;

export type BreakingKind = {
  [K in CatalogueKind]: (typeof CATALOGUE_RULES)[K]['breaking'] extends true ? K : never;
}[CatalogueKind];
export type AdditionKind = Exclude<CatalogueKind, BreakingKind>;
export type ChangeKind = CatalogueKind | SchemaChangeKind;

export interface CatalogueChange {
  kind: ChangeKind;
  breaking: boolean;
  connector: string;
  /** npm package the change belongs to. */
  package: string;
  operation?: string;
  /** The data type, for a field of a data type. */
  entity?: string;
  field?: string;
  from?: string;
  to?: string;
  message: string;
}

export interface CatalogueDiff {
  changes: CatalogueChange[];
  breaking: CatalogueChange[];
  /** Packages that need a major changeset: those with at least one breaking change. */
  majorPackages: string[];
}

/** A change of one connector, before the diff names the connector and its package; the verdict defaults to the kind's. */
export type ConnectorChange = Omit<CatalogueChange, 'connector' | 'package' | 'breaking'> & { breaking?: boolean };

/** A change of one operation, with the words that follow the operation's name in its message. */
export type OperationChange = Pick<CatalogueChange, 'kind' | 'from' | 'to' | 'field'> & { text: string };

/** The change with its operation named and its message written: `operation '<key>' <text>`. */
export function ofOperation(at: string, { text, ...change }: OperationChange): ConnectorChange {
  return { ...change, operation: at, message: `operation '${at}' ${text}` };
}
