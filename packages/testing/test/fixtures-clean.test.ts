import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLANTED_CANARY } from './sample/scenarios.js';
import { canaryForms } from './support/canary.js';

/**
 * Done-when: the planted canary secret is absent from every fixture file in
 * the repository (any file under a `fixtures` folder, outside node_modules,
 * dist and .git), in every form, and so is any `canary-<hex>` credential.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SKIP = new Set(['node_modules', '.git', 'dist', '.tools', 'coverage']);

function fixtureFiles(dir: string, inFixtures = false): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...fixtureFiles(path, inFixtures || entry.name === 'fixtures'));
    else if (inFixtures && entry.isFile() && statSync(path).size < 20_000_000) found.push(path);
  }
  return found;
}

describe('no fixture in the repository holds a canary secret', () => {
  const files = fixtureFiles(ROOT);

  it('finds the fixture files, the committed sample fixtures among them', () => {
    expect(
      files.some((file) => file.endsWith(join('packages', 'testing', 'test', 'fixtures', 'tasks-full.json'))),
    ).toBe(true);
  });

  it('the planted canary is absent in every form, and no canary-<hex> credential appears', () => {
    const forms = canaryForms(PLANTED_CANARY);
    const leaks: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'latin1');
      for (const form of forms)
        if (text.includes(form)) leaks.push(`${file}: ${form.length} characters of the planted canary`);
      if (/canary-[0-9a-f]{12}/.test(text)) leaks.push(`${file}: a canary-<hex> credential`);
    }
    expect(leaks).toEqual([]);
  });
});
