import type { Connector } from './definition/connector.js';
import type { Page } from './definition/action.js';
import { prepareRun } from './run/prepare.js';
import { passGate, type PreparedRun } from './run/prepared.js';
import { type PageSink, runPrepared, runToEnd } from './run/run-prepared.js';
import type { RunOptions } from './run-options.js';

/**
 * The one way an action runs, for every caller (the executor, and through it
 * the CLI, the testing kit and the demo): `prepareRun` validates
 * everything before anything is sent, once; `passGate` is the one approval
 * gate; `runPrepared` runs the prepared run, validates what comes back, and
 * yields pages. A destination yields one page holding its result.
 * `runAction` is the three in a row; `readAll` and `writeAction` consume it whole.
 *
 * Where each job lives: run/prepare.ts (checks before anything is sent), run/prepared.ts (the
 * prepared run and the gate), run/start.ts (a run's credential, wiring, log and `ctx`),
 * run/wiring.ts (what a connection's runs share), run/action-run.ts (what a run yields, checked).
 */

export { prepareRun, resumeFrom, UnknownActionError } from './run/prepare.js';
export { passGate, passedGate } from './run/prepared.js';
export type { PreparedAction, PreparedRun } from './run/prepared.js';
export { runPrepared } from './run/run-prepared.js';
export type { RunOptions, RunSettings } from './run-options.js';

/** Runs an action: prepares it, passes the gate with `options.approval`, and yields its pages. */
export async function* runAction(connector: Connector, actionKey: string, options: RunOptions): AsyncGenerator<Page> {
  yield* runPrepared(gated(connector, actionKey, options), options);
}

/** The run prepared and through the gate with `options.approval`. */
function gated(connector: Connector, actionKey: string, options: RunOptions): PreparedRun {
  const prepared = prepareRun(connector, actionKey, options);
  return passGate(prepared, options.approval);
}

/** Runs a destination and returns its result. */
export async function writeAction(connector: Connector, actionKey: string, options: RunOptions): Promise<unknown> {
  const written = new Written();
  await runToEnd(gated(connector, actionKey, options), options, written);
  return written.result;
}

/** Runs a source to the end and returns every record with the last checkpoint. */
export async function readAll(
  connector: Connector,
  actionKey: string,
  options: RunOptions,
): Promise<{ records: unknown[]; checkpoint: unknown; pages: number }> {
  const gathered = new Gathered(options.checkpoint);
  await runToEnd(gated(connector, actionKey, options), options, gathered);
  return { records: gathered.records ?? [], checkpoint: gathered.checkpoint, pages: gathered.pages };
}

/** A destination's result, its one page's record. */
class Written implements PageSink {
  result: unknown;

  take(page: Page): boolean {
    this.result = page.records[0];
    return false;
  }
}

/** A source's records, pages and last checkpoint, gathered as the pages come: one object, no closures per run. */
class Gathered implements PageSink {
  records: unknown[] | undefined;
  pages = 0;

  constructor(public checkpoint: unknown) {}

  take(page: Page): boolean {
    // A checked page's records are a new array of the run's own: the first is kept, not copied.
    if (this.records === undefined) this.records = page.records;
    else this.records.push(...page.records);
    if (page.checkpoint !== undefined) this.checkpoint = page.checkpoint;
    this.pages += 1;
    return true;
  }
}
