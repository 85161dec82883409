import parse from '@changesets/parse';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

/** Every changeset must parse as changesets reads it, or the release silently leaves it out. */
const ROOT = join(import.meta.dirname, '..');
const FOLDER = join(ROOT, '.changeset');

const packages = new Set(
  ['packages', 'connectors', 'tools/simulators', 'tools']
    .flatMap((parent) =>
      (existsSync(join(ROOT, parent)) ? readdirSync(join(ROOT, parent)) : []).map((name) =>
        join(ROOT, parent, name, 'package.json'),
      ),
    )
    .filter((file) => existsSync(file))
    .map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { name: string }).name),
);

describe('changesets', () => {
  const files = readdirSync(FOLDER).filter((name) => name.endsWith('.md') && name !== 'README.md');

  test.each(files)('%s names the packages it releases in its front matter', (name) => {
    const { releases, summary } = parse(readFileSync(join(FOLDER, name), 'utf8'));
    expect(releases.length).toBeGreaterThan(0);
    for (const release of releases) expect(packages, `${name}: ${release.name}`).toContain(release.name);
    expect(summary.trim()).not.toBe('');
  });
});
