import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { recordedExamples } from '../src/index.js';

const EXAMPLE_FIXTURES = fileURLToPath(new URL('../../../tools/example-connector/test/fixtures/', import.meta.url));

describe('recordedExamples', () => {
  it("gives each action's recorded input and first record, from a run with no checkpoint first", () => {
    const examples = recordedExamples(EXAMPLE_FIXTURES);
    expect(Object.keys(examples).sort()).toEqual([
      'items.list',
      'jobs.run',
      'orders.create',
      'quotes.create',
      'refunds.create',
    ]);
    expect(examples['items.list']).toEqual({
      scenario: 'items-first',
      input: { limit: 2 },
      record: { id: 'item_001', name: 'Item 1', updated_at: '2026-01-01T00:00:00.000Z' },
    });
    expect(examples['orders.create']).toMatchObject({ input: { quantity: 2, sku: 'sku_1' } });
  });

  it('gives nothing for a folder that does not exist', () => {
    expect(recordedExamples(fileURLToPath(new URL('./no-such-fixtures/', import.meta.url)))).toEqual({});
  });
});
