import { invalidInput } from '../errors.js';

/** Reading fields of a JSON request body that may not have been checked against the OpenAPI document. */

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optionalString(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidInput(`${name} must be a string`);
  return value;
}

export function requiredString(fields: Fields, name: string): string {
  const value = optionalString(fields, name);
  if (value === undefined) throw invalidInput(`${name} is required`);
  return value;
}
