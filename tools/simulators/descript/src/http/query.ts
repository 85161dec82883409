import { invalidInput } from '../errors.js';
import { parseInstant } from '../util/time.js';

/**
 * Query parameters as the provider reads them, checked even when no OpenAPI document is
 * loaded, so the simulator never answers nonsense to a malformed request.
 */

export function limitParam(query: URLSearchParams, fallback: number): number {
  const text = query.get('limit');
  if (text === null) return fallback;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 100) throw invalidInput('limit must be an integer between 1 and 100');
  return limit;
}

export function enumParam<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (!(allowed as readonly string[]).includes(text))
    throw invalidInput(`${name} must be one of ${allowed.join(', ')}`);
  return text as T;
}

/** Repeatable parameters (`type=a&type=b`); undefined when absent. */
export function listParam<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed?: readonly T[],
): T[] | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  for (const value of values) {
    if (allowed && !(allowed as readonly string[]).includes(value))
      throw invalidInput(`${name} must be one of ${allowed.join(', ')}`);
  }
  return values as T[];
}

/** An ISO 8601 instant, in ms. A bare date reads as the start of the UTC day, or its end when `endOfDay`. */
export function instantParam(query: URLSearchParams, name: string, endOfDay = false): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  const ms = parseInstant(text, endOfDay);
  if (ms === undefined) throw invalidInput(`${name} must be an ISO 8601 timestamp`);
  return ms;
}
