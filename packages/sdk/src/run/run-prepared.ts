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

/**
 * A prepared run that passed the gate, each page handed to `onPage` as it comes, until the last
 * or until `onPage` says no more (false): for the callers that consume pages at once (`readAll`,
 * `writeAction`), without the turns a generator of its own costs each page.
 */
export async function runToEnd(
  prepared: PreparedRun,
  options: RunSettings,
  onPage: (page: Page) => boolean,
): Promise<void> {
  const started = startRun(prepared, options);
  const run = isStarted(started) ? started : await started;
  try {
    if (run.prepared.action.direction === 'destination') {
      onPage(await run.written());
      return;
    }
    for await (const page of run.source()) if (!onPage(run.checked(page))) return;
  } catch (error) {
    throw run.failure(error);
  }
}

function isStarted(started: ActionRun | Promise<ActionRun>): started is ActionRun {
  return !(started instanceof Promise);
}
