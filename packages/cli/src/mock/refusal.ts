import { sampleOf } from '@plugboard/catalogue/sample';
import type { MediaType, Operation, Schema } from '../openapi-document.js';

/** What the stand-in refuses, as the answer's status and JSON. */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const CODE = ['error', 'code', 'type', 'errorcode', 'errortype'];
const MESSAGE = ['message', 'detail', 'description', 'errormessage', 'errordescription', 'title'];
const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The JSON media of an answer: `application/json`, a `+json` type, or `*\/*`. */
export function jsonMediaType(content: Record<string, unknown>): string | undefined {
  return (
    Object.keys(content).find((name) => /^application\/(.+\+)?json\b/.test(name)) ??
    Object.keys(content).find((name) => name === '*/*')
  );
}

export function jsonMedia(content: Record<string, MediaType> | undefined): MediaType | undefined {
  const type = content ? jsonMediaType(content) : undefined;
  return type === undefined ? undefined : content![type];
}

/**
 * The refusal's JSON in the shape the operation's error answer for its status has (that
 * status, its `4XX`, or `default`): its code and message go into the fields named like them
 * (`error`, `code`, `message`, `detail` ..., one object deep), the rest is a sample of the
 * schema. Without such a schema, or one with no such fields: `{ error, message }`.
 */
export function refusalBody(refusal: Refusal, operation: Operation | undefined): unknown {
  const plain = { error: refusal.error, message: refusal.message };
  const responses = operation?.responses ?? {};
  const status = String(refusal.status);
  const response = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
  const schema = jsonMedia(response?.content)?.schema;
  // A copy: the sample may be the document's own example.
  const sample = structuredClone(sampleOf(schema as Schema | undefined));
  if (sample === null || typeof sample !== 'object' || Array.isArray(sample)) return plain;
  const fill = (value: Record<string, unknown>, at: Schema | undefined, depth: number): boolean => {
    let filled = false;
    const properties = (at?.properties ?? {}) as Record<string, Schema>;
    for (const [name, property] of Object.entries(properties)) {
      const own = value[name];
      if (depth === 0 && own !== null && typeof own === 'object' && !Array.isArray(own))
        filled = fill(own as Record<string, unknown>, property, 1) || filled;
      if (property?.type !== 'string' || Array.isArray(property.enum)) continue;
      if (CODE.includes(normal(name))) value[name] = refusal.error;
      else if (MESSAGE.includes(normal(name))) value[name] = refusal.message;
      else continue;
      filled = true;
    }
    return filled;
  };
  return fill(sample as Record<string, unknown>, schema as Schema, 0) ? sample : plain;
}
