import { z } from 'zod';
import type { ActionContext } from '../context.js';

/**
 * Dynamic input options: the values an input field may take, listed from the provider when a
 * person fills the field in (a project picker). Declared per field on the action, beside its zod
 * input (zod schemas are not ours to extend), and run through the same pipeline as the action.
 */

/** Where a field's options come from, and how to list them. */
export interface FieldOptions<V = string | number> {
  /**
   * Where the options come from, in a few words, for the catalogue (never values).
   * @example from: "the drive's projects"
   */
  from: string;
  /**
   * `list` sends the search to the provider, which filters by it. Otherwise the SDK keeps the
   * items of each page whose label contains the search (case-insensitive).
   * @default false
   */
  searchable?: boolean;
  /**
   * Lists one page of options through `ctx.http`, with the action's rate budget, the network
   * policy and redaction; its requests time out after 10 s unless the action says less. `query`
   * holds what a person typed and where the last page ended; the page has `nextCursor` when
   * there are more.
   * @example async list(ctx, { search, cursor }) { const page = await ctx.http.get('/projects', { query: { name: search, cursor } }); return { items: page.data.map((p) => ({ value: p.id, label: p.name })), nextCursor: page.next_cursor }; }
   */
  list(
    ctx: ActionContext,
    query: {
      /** Text to narrow the options by (at most 200 characters). */
      search?: string | undefined;
      /** The `nextCursor` of the page before. */
      cursor?: string | undefined;
    },
  ): Promise<{
    /** Each value the field may take, with what a person reads for it. */
    items: { value: V; label: string; description?: string }[];
    /** Where the next page starts; absent on the last one. */
    nextCursor?: string;
  }>;
}

/** What a person typed and where the last page ended: the query of `FieldOptions.list`. */
export type OptionsQuery = Parameters<FieldOptions['list']>[1];

/** One page of options, as `FieldOptions.list` gives it; `nextCursor` when there are more. */
export type OptionsPage<V = string | number> = Awaited<ReturnType<FieldOptions<V>['list']>>;

/** Wrappers that leave the field's value type as it is; each gives its inner schema with `unwrap()`. */
const WRAPPERS = [
  z.ZodOptional,
  z.ZodNullable,
  z.ZodDefault,
  z.ZodPrefault,
  z.ZodReadonly,
  z.ZodCatch,
  z.ZodNonOptional,
];

type Wrapper = InstanceType<(typeof WRAPPERS)[number]>;

/** The field's own schema inside its wrappers (optional, default, ...): what each option's value is checked against. */
export function optionValueSchema(field: z.ZodType): z.ZodType {
  let schema = field;
  for (let depth = 0; depth < 16 && WRAPPERS.some((wrapper) => schema instanceof wrapper); depth += 1) {
    schema = (schema as Wrapper).unwrap() as z.ZodType;
  }
  return schema;
}

const stringOrNumber = (value: unknown) => typeof value === 'string' || typeof value === 'number';

/** The fields options fit: their JSON value is a string or a number. */
function fitsOptions(field: z.ZodType): boolean {
  const schema = optionValueSchema(field);
  if (schema instanceof z.ZodEnum) return schema.options.every(stringOrNumber);
  if (schema instanceof z.ZodLiteral) return [...schema.values].every(stringOrNumber);
  return schema.def.type === 'string' || schema.def.type === 'number';
}

/** The field of the input schema, when the input is an object that has it. */
export function inputField(input: unknown, field: string): z.ZodType | undefined {
  if (!(input instanceof z.ZodObject)) return undefined;
  const shape = input.shape as Record<string, z.ZodType>;
  return Object.hasOwn(shape, field) ? shape[field] : undefined;
}

/** Every problem of an action's `options`, each naming the field. */
export function optionsProblems(input: unknown, options: unknown): string[] {
  if (options === undefined) return [];
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    return ['options must be an object of field options by input field name'];
  const problems: string[] = [];
  for (const [name, declared] of Object.entries(options as Record<string, unknown>)) {
    const at = (text: string) => problems.push(`options of input field '${name}': ${text}`);
    const field = inputField(input, name);
    if (!field) at('the input has no such field');
    else if (!fitsOptions(field)) at(`the field is ${describeType(field)}; options fit a string or number field only`);
    const { from, list, searchable } = (declared ?? {}) as Partial<FieldOptions>;
    if (typeof from !== 'string' || from.trim() === '') at('from must say where the options come from');
    if (typeof list !== 'function') at('list must be a function');
    if (searchable !== undefined && typeof searchable !== 'boolean') at('searchable must be true or false');
  }
  return problems;
}

function describeType(field: z.ZodType): string {
  const type = optionValueSchema(field).def.type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
