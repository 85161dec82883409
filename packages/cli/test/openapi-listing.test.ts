import { describe, expect, it } from 'vitest';
import { sharedListing, unpagedNote } from '../src/openapi-listing.js';
import { detectPaging } from '../src/openapi-paging.js';

/** The paging source text a scaffold writes: names from the document never leave their comments or strings. */

describe('the paging a scaffold writes', () => {
  it('keeps a hostile field name inside its comment and its string', () => {
    const hostile = "x*/ globalThis['process']['exit'](1) /*";
    const paging = detectPaging({
      path: '/items',
      parameters: [{ name: 'cursor', in: 'query', schema: { type: 'string' } }],
      answer: {
        type: 'object',
        properties: {
          data: { type: 'array', items: { type: 'object' } },
          [hostile]: { type: 'object', properties: { next_cursor: { type: 'string' } } },
        },
      },
      headers: [],
    });
    expect(paging.paginator?.kind).toBe('cursor');
    const { source } = sharedListing([
      { key: 'items.list', paging },
      { key: 'others.list', paging },
    ]);
    // No line of a comment ends it early.
    const commentText = source!.split('\n').filter((line) => line.startsWith(' * '));
    expect(commentText.join('\n')).toContain('x* /');
    expect(commentText.filter((line) => line.includes('*/'))).toEqual([]);
    expect(source).toContain(`from: ${JSON.stringify(`${hostile}.next_cursor`)}`);
    expect(unpagedNote('a `x*/ y` parameter').join('\n')).not.toContain('*/');
  });
});
