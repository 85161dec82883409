import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { sampleOf } from '../src/sample.js';

/** Examples sampled from a schema, where no recording gives one: valid, and plausible to a person reading them. */

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;

describe('sampleOf', () => {
  it('gives integers within their bounds, not the bound zod writes for a safe integer', () => {
    const sample = sampleOf(
      jsonSchema(
        z.object({
          confinement_days: z.number().int(),
          age: z.number().int().min(18).max(99),
          count: z.number().int().positive(),
          below: z.number().int().max(-5),
          ratio: z.number().min(0).max(1),
          step: z.number().int().min(1).multipleOf(5),
          between: z.number().gt(2).lt(3),
        }),
      ),
    ) as Record<string, number>;
    expect(sample).toEqual({ confinement_days: 1, age: 18, count: 1, below: -5, ratio: 1, step: 5, between: 2.5 });
  });

  it("names a string after its field, within its length, and keeps formats, enums and a literal's value", () => {
    const schema = z.object({
      folder: z.string(),
      project_id: z.string(),
      code: z.string().min(2).max(3),
      long_name_of_a_thing: z.string().max(8),
      email: z.email(),
      tier: z.literal('classic'),
      kind: z.enum(['plus', 'basic']),
      tags: z.array(z.string()),
    });
    const sample = sampleOf(jsonSchema(schema));
    expect(sample).toEqual({
      folder: 'example-folder',
      project_id: 'example-project-id',
      code: 'exa',
      long_name_of_a_thing: 'example-',
      email: 'user@example.com',
      tier: 'classic',
      kind: 'plus',
      tags: ['example-tags'],
    });
    expect(schema.safeParse(sample).success).toBe(true);
  });

  it('gives a string its simple pattern accepts', () => {
    const schema = z.object({
      currency: z.string().regex(/^[A-Z]{3}$/),
      amount: z.string().regex(/^\d+\.\d{2}$/),
      day: z.iso.date(),
      at: z.iso.datetime(),
      // Too involved to build from: the field's name stands, as before.
      either: z.string().regex(/^(a|b)+$/),
    });
    const sample = sampleOf(jsonSchema(schema));
    expect(sample).toEqual({
      currency: 'AAA',
      amount: '1.11',
      day: '2026-01-01',
      at: '2026-01-01T00:00:00Z',
      either: 'example-either',
    });
  });

  it('samples a schema that combines itself (allOf, oneOf) without running out of stack', () => {
    const looped: Record<string, unknown> = {};
    looped.allOf = [looped, { type: 'object', properties: { id: { type: 'string' } } }];
    const chosen: Record<string, unknown> = {};
    chosen.oneOf = [chosen];
    expect(sampleOf(looped)).toEqual({ id: 'example-id' });
    expect(sampleOf(chosen)).toBeNull();
    expect(sampleOf({ $ref: '#/$defs/a', $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } } })).toBeNull();
  });
});
