import { describe, expect, it } from 'vitest';
import { cursorLoop } from '../src/paginate/cursor-loop.js';

/** The step (1-based) at which `cursorLoop` first says a cursor repeats, or undefined within `steps`. */
function caughtAt(sequence: (step: number) => string | undefined, steps: number): number | undefined {
  const loop = cursorLoop();
  for (let step = 1; step <= steps; step += 1) if (loop.repeats(sequence(step))) return step;
  return undefined;
}

describe('cursorLoop', () => {
  it('catches every cycle within three times the pages that lead into it and go round it', () => {
    for (let lead = 0; lead <= 30; lead += 1) {
      for (let cycle = 1; cycle <= 60; cycle += 1) {
        // Cursors c1..c<lead>, then c<lead+1>..c<lead+cycle> over and over.
        const sequence = (step: number) => `c${step <= lead ? step : lead + 1 + ((step - lead - 1) % cycle)}`;
        const at = caughtAt(sequence, 10 * (lead + cycle));
        expect(at, `lead ${lead}, cycle ${cycle}`).toBeDefined();
        // The first repeat cannot be seen before the cycle has gone round once.
        expect(at!).toBeGreaterThan(lead + cycle);
        // Remembered at step 2^k - 1: the first such step inside the cycle with a stretch (2^k)
        // as long as the cycle, plus once round it.
        expect(at!).toBeLessThan(2 * Math.max(lead + 2, cycle) + cycle);
        expect(at!).toBeLessThanOrEqual(3 * (lead + cycle) + 2);
      }
    }
  });

  it('never takes distinct cursors, or the last page, for a loop', () => {
    expect(caughtAt((step) => `c${step}`, 100_000)).toBeUndefined();
    expect(caughtAt(() => undefined, 100)).toBeUndefined();
  });
});
