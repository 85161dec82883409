import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * `triggers serve` bounds V8's young generation before the receiver loads (a flood of refused
 * bodies is then collected by the next scavenge): in a process of its own, since the bound is
 * the process's, the young generation stays at the size it had when bounded while Node would
 * grow it.
 */

const MODULE = new URL('../src/young-generation.ts', import.meta.url).href;

/** A child's new space (MB) when it starts work (bounded first, if `bound`), and after 2,000,000 objects of which some survive a while. */
async function newSpace(bound: boolean): Promise<{ before: number; after: number }> {
  const source = `
    import v8 from 'node:v8';
    const newSpace = () =>
      v8.getHeapSpaceStatistics().find((entry) => entry.space_name === 'new_space').space_size / 1048576;
    ${bound ? `(await import(${JSON.stringify(MODULE)})).boundYoungGeneration();` : ''}
    const before = newSpace();
    const kept = [];
    for (let index = 0; index < 2e6; index += 1) {
      kept.push({ index, text: 'x' + index });
      if (kept.length > 200000) kept.splice(0, 100000);
    }
    process.stdout.write(JSON.stringify({ before, after: newSpace() }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', source]);
  return JSON.parse(stdout);
}

describe('boundYoungGeneration', () => {
  it('keeps the young generation at the size it has when called (2 MB at least), where Node grows it past 16 MB', async () => {
    const [grown, bounded] = await Promise.all([newSpace(false), newSpace(true)]);
    expect(grown.after).toBeGreaterThanOrEqual(16);
    // V8 still gives a young generation it starts at 1 MB its second megabyte.
    expect(bounded.after).toBeLessThanOrEqual(Math.max(bounded.before, 2));
  }, 60_000);
});
