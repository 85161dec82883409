import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldRows } from '../src/fields.js';
import { schemaFile, schemaParts } from '../src/schemas.js';

function rows(schema: z.ZodType, io: 'input' | 'output' = 'output', follow = false) {
  const file = schemaFile(schemaParts(schema, io), 'T');
  return fieldRows(file, file, { follow }).map((row) => `${row.field}: ${row.type}${row.required ? '' : '?'}`);
}

describe('field tables of JSON Schemas', () => {
  it('reads nullable fields, arrays of objects, records, enums and formats', () => {
    const T = z.object({
      a: z.string().nullable(),
      b: z.array(z.object({ x: z.number().int(), y: z.string().optional() })),
      c: z.record(z.string(), z.number()),
      d: z.enum(['one', 'two']).optional(),
      e: z.iso.date(),
      f: z.literal('fixed'),
    });
    expect(rows(T)).toEqual([
      'a: string | null',
      'b: object[]',
      'b[].x: integer',
      'b[].y: string?',
      'c: Record<string, number>',
      'd: "one" | "two"?',
      'e: string (date)',
      'f: "fixed"',
    ]);
  });

  it('merges intersections and the branches of unions (required only when every branch requires it)', () => {
    const Both = z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() }));
    const Either = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('card'), last4: z.string(), id: z.string() }),
      z.object({ kind: z.literal('bank'), iban: z.string(), id: z.string() }),
    ]);
    expect(rows(z.object({ both: Both, either: Either }))).toEqual([
      'both: object',
      'both.a: string',
      'both.b: number',
      'either: object',
      'either.kind: "card"',
      'either.last4: string?',
      'either.id: string',
      'either.iban: string?',
    ]);
  });

  it('names types that have their own table and walks into them only when asked, without looping on cycles', () => {
    interface Folder {
      name: string;
      children: Folder[];
    }
    const Folder: z.ZodType<Folder> = z
      .object({
        name: z.string(),
        get children() {
          return z.array(Folder);
        },
      })
      .meta({ id: 'Folder' });
    const Drive = z
      .object({ root: Folder, owner: z.object({ id: z.string() }).meta({ id: 'Owner' }) })
      .meta({ id: 'Drive' });
    expect(rows(Drive)).toEqual(['root: Folder', 'owner: Owner']);
    expect(rows(Drive, 'output', true)).toEqual([
      'root: Folder',
      'root.name: string',
      'root.children: Folder[]',
      'owner: Owner',
      'owner.id: string',
    ]);
  });

  it('says in a field row where its options come from', () => {
    const file = {
      type: 'object',
      properties: {
        project_id: {
          type: 'string',
          description: 'The project',
          'x-plugboard-options': { from: 'the projects', search: 'provider' },
        },
        kind: { type: 'string', 'x-plugboard-options': { from: 'the kinds', search: 'label' } },
      },
    };
    expect(fieldRows(file, file).map((row) => row.description)).toEqual([
      'The project (options: the projects)',
      'Options: the kinds',
    ]);
  });
});
