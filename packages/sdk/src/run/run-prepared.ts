import type { Page } from '../definition/action.js';
import type { ActionRun } from './action-run.js';
import type { PreparedRun } from './prepared.js';
import type { RunSettings } from '../run-options.js';
import { startRun } from './start.js';

/** Runs a prepared run that passed the gate and yields its pages; for a destination, one page with the result. */
export async function* runPrepared(prepared: PreparedRun, options: RunSettings): AsyncGenerator<Page> {
  const started = startRun(prepared, options);
  const run = isStarted(started) ? started : await started;
  try {
    if (run.prepared.action.direction === 'destination') {
      yield await run.written();
      return;
    }
    for await (const page of run.source()) yield run.checked(page);
  } catch (error) {
    throw run.failure(error);
  }
}

/** Where `runToEnd` hands each page: `take` says whether to go on (false: no more pages). */
export interface PageSink {
  take(page: Page): boolean;
}

/**
 * A prepared run that passed the gate, each page handed to `sink` as it comes, until the last
 * or until the sink says no more (false): for the callers that consume pages at once (`readAll`,
 * `writeAction`), without the turns a generator of its own costs each page.
 */
export async function runToEnd(prepared: PreparedRun, options: RunSettings, sink: PageSink): Promise<void> {
  const started = startRun(prepared, options);
  const run = isStarted(started) ? started : await started;
  try {
    if (run.prepared.action.direction === 'destination') {
      sink.take(await run.written());
      return;
    }
    for await (const page of run.source()) if (!sink.take(run.checked(page))) return;
  } catch (error) {
    throw run.failure(error);
  }
}

function isStarted(started: ActionRun | Promise<ActionRun>): started is ActionRun {
  return !(started instanceof Promise);
}
