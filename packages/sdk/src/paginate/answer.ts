import { z } from 'zod';
import { excerpt } from '../excerpt.js';
import { PageValueError } from './paginator.js';

/**
 * A declared paginator's `answer`, the page's zod schema as the provider documents it. At
 * definition every path the paginator reads from the body must be in it (the records a list);
 * while reading, each page is checked against the part of it the paginator reads: the objects on
 * the way to each path and the value there. The records are checked to be a list only, never
 * record by record (the entity schema checks each record), so a check costs the same whatever
 * the page's size.
 */

/** A path the paginator reads from the body, by the option's name. */
export type AnswerPath = [name: string, path: string];

/** What a value read at a path is: the records (a list), a cursor (text, or a whole number taken as its text), or as declared. */
export type ReadAs = 'records' | 'cursor' | 'value';

/** The paths the paginator reads that its declared answer does not have. */
export function answerProblems(answer: unknown, paths: readonly AnswerPath[]): string[] {
  if (!(answer instanceof z.ZodType)) return ['answer must be a zod schema of the page'];
  const problems: string[] = [];
  for (const [name, path] of paths) {
    if (typeof path !== 'string') continue;
    const found = schemaAt(answer, path);
    if (found === undefined) problems.push(`${name}: '${path}' is not in the declared answer`);
    else if (name === 'records' && !(found instanceof z.ZodArray))
      problems.push(`records: '${path}' is not a list in the declared answer`);
  }
  return problems;
}

/**
 * The check of a page's body against the part of `answer` at `paths`: throws a PageValueError
 * naming each path that does not match. Undefined without an answer; a path the answer lacks
 * (which `defineConnector` refuses) is left unchecked.
 */
export function pageCheck(
  answer: unknown,
  paths: readonly { path: string; as: ReadAs }[],
): ((body: unknown) => void) | undefined {
  if (!(answer instanceof z.ZodType)) return undefined;
  const read = paths.filter(({ path }) => typeof path === 'string' && schemaAt(answer, path) !== undefined);
  if (read.length === 0) return undefined;
  const schema = projected(
    answer,
    read.map(({ path, as }) => ({ steps: path === '' ? [] : path.split('.'), as })),
  );
  return (body) => {
    const result = schema.safeParse(body);
    if (result.success) return;
    throw new PageValueError(
      result.error.issues.slice(0, 10).map((issue) => ({
        path: issue.path.map(String).join('.') || '(answer)',
        found: `does not match the declared answer here: ${excerpt(issue.message)}`,
      })),
    );
  };
}

type Reading = { steps: string[]; as: ReadAs };

/** The part of `schema` on the way to each reading, objects kept loose (other keys pass unchecked). */
function projected(schema: z.ZodType, readings: readonly Reading[]): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault)
    return z.optional(projected(schema.unwrap() as z.ZodType, readings));
  if (schema instanceof z.ZodNullable) return z.nullable(projected(schema.unwrap() as z.ZodType, readings));
  const leaf = readings.find(({ steps }) => steps.length === 0);
  if (leaf) return leafSchema(schema, leaf.as);
  const shape = (schema as z.ZodObject).shape as Record<string, z.ZodType>;
  const keys = new Map<string, Reading[]>();
  for (const { steps, as } of readings) {
    const [key, ...rest] = steps as [string, ...string[]];
    keys.set(key, [...(keys.get(key) ?? []), { steps: rest, as }]);
  }
  return z.looseObject(Object.fromEntries([...keys].map(([key, inner]) => [key, projected(shape[key]!, inner)])));
}

function leafSchema(schema: z.ZodType, as: ReadAs): z.ZodType {
  // A list of records is checked as a list: put in place of an empty one, its records are not walked.
  if (as === 'records') return z.preprocess((value) => (Array.isArray(value) ? [] : value), z.array(z.unknown()));
  if (as === 'cursor')
    return z.preprocess(
      (value) => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value),
      schema,
    );
  return schema;
}

/** The schema at a dotted path of an object schema ('' the whole), through optional, nullable and default. */
function schemaAt(schema: z.ZodType, path: string): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrapped(schema);
  for (const key of path === '' ? [] : path.split('.')) {
    if (!(current instanceof z.ZodObject)) return undefined;
    const shape = current.shape as Record<string, z.ZodType>;
    current = Object.hasOwn(shape, key) ? unwrapped(shape[key]!) : undefined;
  }
  return current;
}

function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault)
    current = current.unwrap() as z.ZodType;
  return current;
}
