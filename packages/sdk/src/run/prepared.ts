import { type ApprovalDecision, checkApproval } from '../approval.js';
import { checkpointDeclaration } from '../checkpoint.js';
import { systemClock } from '../clock.js';
import type { ResolvedConnection } from '../connection.js';
import type { Action, DestinationAction, Environment } from '../definition/action.js';
import type { Connector } from '../definition/connector.js';
import { type ApprovalBinding, approvalDigest } from '../digest.js';

/**
 * What the executor knows of a prepared run, wherever the action's code runs (in this process,
 * or in a plugin's own process): enough for the gate, the idempotency claim and the checkpoint.
 */
export interface PreparedAction {
  connector: { key: string; version: string };
  action: Pick<Action, 'key' | 'direction' | 'retry' | 'billable'> & Pick<DestinationAction, 'idempotencyHeader'>;
  /** The validated input, defaults applied: exactly what the action receives. */
  input: unknown;
  connection: { id: string };
  environment: Environment;
  checkpoint: unknown;
  /** The version of the action's checkpoint, under which the executor stores it; 1 when left out. */
  readonly checkpointVersion?: number;
  /** The digest of exactly this run. */
  readonly binding: ApprovalBinding;
  needsApproval: boolean;
}

export interface PreparedRun extends PreparedAction {
  connector: Connector;
  action: Action;
  connection: ResolvedConnection;
}

/**
 * The prepared runs of other runners (a plugin's) that passed the gate; only `passGate` adds to it.
 * This module's own carry the mark in a private field: a weak set of every run costs the garbage collector.
 */
const passed = new WeakSet<PreparedAction>();

/** True when the gate let this prepared run through: a runner that runs actions elsewhere checks it before it hands anything on. */
export function passedGate(prepared: PreparedAction): boolean {
  return prepared instanceof Prepared ? hasPassed(prepared) : passed.has(prepared);
}

/** True only for a run `prepareRun` made in this process that passed the gate: what `runPrepared` runs. */
export function passedHere(prepared: PreparedAction): prepared is Prepared {
  return prepared instanceof Prepared && hasPassed(prepared);
}

function markPassed(prepared: PreparedAction): void {
  if (prepared instanceof Prepared) setPassed(prepared);
  else passed.add(prepared);
}

// Set in Prepared's static block: the only code that reaches its private mark.
let setPassed: (prepared: Prepared) => void;
let hasPassed: (prepared: Prepared) => boolean;

/** A run `prepareRun` checked: nothing in it changes, and only `passGate` marks it passed. */
export class Prepared implements PreparedRun {
  private digest: ApprovalBinding | undefined;
  /** Set only by `passGate`: a private field, which no code outside this module can reach. */
  #passed = false;

  static {
    setPassed = (prepared) => {
      prepared.#passed = true;
    };
    hasPassed = (prepared) => prepared.#passed;
  }

  constructor(
    readonly connector: Connector,
    readonly action: Action,
    readonly input: unknown,
    readonly connection: ResolvedConnection,
    readonly environment: Environment,
    readonly checkpoint: unknown,
    readonly needsApproval: boolean,
    /** The checkpoint was migrated from an older version: the first page carries it when it moves none. */
    readonly migrated = false,
  ) {}

  get checkpointVersion(): number {
    return this.action.direction === 'source' ? checkpointDeclaration(this.action.incremental).version : 1;
  }

  // Hashing the canonical input costs; only runs that involve an approval need it.
  get binding(): ApprovalBinding {
    this.digest ??= approvalDigest({
      connector: { key: this.connector.key, version: this.connector.version },
      action: this.action.key,
      connectionId: this.connection.id,
      environment: this.environment,
      input: this.input,
    });
    return this.digest;
  }
}

/**
 * The approval gate, the only one: a run that needs an approval here goes on
 * only with a decision, by someone other than the requester, that quotes the
 * digest of exactly this run and has not expired (`checkApproval`). A run that
 * needs none passes as it is. `now` is the time the expiry is checked against (ms since the epoch, a `Clock`'s `now()`).
 */
export function passGate<P extends PreparedAction>(
  prepared: P,
  approval: ApprovalDecision | undefined,
  now?: number,
): P {
  if (prepared.needsApproval) {
    checkApproval(approval, {
      subject: `${prepared.connector.key} ${prepared.action.key} in ${prepared.environment}`,
      binding: prepared.binding,
      // The clock is read only for a run that needs an approval: on some hosts a reading is a system call.
      now: now ?? systemClock.now(),
    });
  }
  markPassed(prepared);
  return prepared;
}
