import type { RecordedResponse } from '../fixture.js';
import type { Scenario } from '../scenario.js';

/** Two recorded runs of an incremental source, the second from the first run's final checkpoint. */
export interface IncrementalPair {
  /** The first run (from no checkpoint, or the scenario's). */
  first: string;
  /** The second run, recorded from the first run's final checkpoint. */
  then: string;
}

/** What the standard suite checks a connector against: its fixtures, scenarios and two-run pairs. */
export interface ConnectorSuiteOptions {
  /** The connector's `test/fixtures/` folder. */
  fixturesDir: string;
  /** Default: every scenario stored in the fixtures folder. */
  scenarios?: readonly Scenario[];
  /** Two-run pairs; every incremental source needs at least one. */
  incremental?: readonly IncrementalPair[];
  /** The fault checks (billable actions not retried, 401/402/429 mapping); default on. */
  faults?: boolean;
  /** Identity of a record for "no record read twice"; default its `id`, else the whole record. */
  recordKey?: (record: unknown, action: string) => unknown;
  /** Hosts replay may still reach; none by default. */
  allowHosts?: readonly (string | RegExp)[];
  /**
   * Whether the last recorded answer of a source without a declared paginator offers another
   * page (a declared one says why its read ended, and is checked by that). Default: a next
   * marker in the JSON body (`next_cursor`, `paging.next`, `has_more: true` ...)
   * or a `Link` header with `rel="next"`; `false` turns the check off.
   */
  nextPage?: ((lastResponse: RecordedResponse) => boolean) | false;
}
