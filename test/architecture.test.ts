import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from './support/packages.js';

/**
 * ARCHITECTURE.md is the map of the code a newcomer follows: every path it names in backticks
 * (a word with a slash) must exist, so a move or a rename that
 * forgets the map fails here.
 */

const MAP = 'ARCHITECTURE.md';

/** The paths the map names: backticked words holding a slash (package names, `@scope/name`, are not paths). */
function namedPaths(markdown: string): string[] {
  const quoted = [...markdown.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!);
  return [...new Set(quoted.filter((word) => /^[\w.-]+(\/[\w.-]+)+\/?$/.test(word)))];
}

describe('the code map (ARCHITECTURE.md)', () => {
  const text = readFileSync(join(ROOT, MAP), 'utf8');

  test('names paths, each of which exists', () => {
    const paths = namedPaths(text);
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  test('a path that does not exist is caught', () => {
    expect(namedPaths('see `packages/sdk/src/nowhere.ts` and `a word`')).toEqual(['packages/sdk/src/nowhere.ts']);
  });

  test('is linked from the README', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`(${MAP})`);
  });
});
