import { ConnectorError, excerpt } from '@plugboard/sdk';

/**
 * "Did you mean": the known name nearest to a word that names nothing (a connector, an
 * action, an input field). Words and lists come from the command line and from packages:
 * both are bounded before anything is compared, so the work stays small whatever they hold.
 */

/** The longest word compared, and the most names compared with it. */
const MAX_WORD = 64;
const MAX_NAMES = 500;

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`; stops counting past `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** The name nearest to `word` when one is near enough to be what was meant (a third of its letters at most), else undefined. */
export function nearest(word: string, names: Iterable<string>): string | undefined {
  const typed = word.slice(0, MAX_WORD).toLowerCase();
  const limit = Math.max(1, Math.min(3, Math.floor(typed.length / 3)));
  let found: string | undefined;
  let distance = limit + 1;
  let seen = 0;
  for (const name of names) {
    if (seen++ >= MAX_NAMES) break;
    if (name.length > MAX_WORD) continue;
    const d = editDistance(typed, name.toLowerCase(), distance - 1);
    if (d < distance) {
      found = name;
      distance = d;
    }
  }
  return found;
}

/** `; did you mean X?` when a name is near, else ''. */
export function didYouMean(word: string, names: Iterable<string>): string {
  const near = nearest(word, names);
  return near === undefined ? '' : `; did you mean ${near}?`;
}

/**
 * An action the connector does not have, said before anything runs: exits 2 with the code of
 * the executor's own refusal (`unknown_action`), naming the nearest action or else all of them.
 */
export class UnknownActionNameError extends ConnectorError {
  /** Where the connector's actions are listed, for a person. */
  readonly hint: string;

  constructor(connector: { key: string; actions: ReadonlyArray<{ key: string }> }, action: string) {
    const keys = connector.actions.map((known) => known.key);
    const near = nearest(action, keys);
    super(
      `connector '${connector.key}' has no action '${excerpt(action)}'${near ? `; did you mean ${near}?` : `; it has ${keys.join(', ')}`}`,
      { code: 'unknown_action', retryable: false, platformStatus: 404 },
    );
    this.hint = `plugboard describe ${connector.key} lists its actions and their inputs`;
  }
}

/** Refuses an action the connector does not have, before anything is sent. */
export function checkActionName(
  connector: { key: string; actions: ReadonlyArray<{ key: string }> },
  action: string,
): void {
  if (!connector.actions.some((known) => known.key === action)) throw new UnknownActionNameError(connector, action);
}
