import { describe, expect, it } from 'vitest';
import { sampleOf } from '../src/sample.js';

/** `sampleOf`: a value of a schema, bounded whatever the schema. */
describe('sampleOf', () => {
  it('samples a schema that combines itself (allOf, oneOf) without running out of stack', () => {
    const looped: Record<string, unknown> = {};
    looped.allOf = [looped, { type: 'object', properties: { id: { type: 'string' } } }];
    const chosen: Record<string, unknown> = {};
    chosen.oneOf = [chosen];
    expect(sampleOf(looped)).toEqual({ id: 'string' });
    expect(sampleOf(chosen)).toBeNull();
    expect(sampleOf({ $ref: '#/$defs/a', $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } } })).toBeNull();
  });
});
