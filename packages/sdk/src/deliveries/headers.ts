/**
 * Reading a header a sender wrote, bounded: a header longer than its bound is not read further,
 * however many times it was sent.
 */

/** A request's headers as node:http gives them: lower-case names, a header sent twice as an array when asked so. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/**
 * The text of the header `name` (lower case), its repeats joined with `, ` as node:http joins
 * them; undefined when it is missing, empty, not text, or longer than `maxLength`. Only the
 * object's own keys count: an inherited value is no header.
 */
export function headerText(headers: RequestHeaders, name: string, maxLength: number): string | undefined {
  if (!Object.hasOwn(headers, name)) return undefined;
  const value = headers[name];
  if (typeof value === 'string') return value !== '' && value.length <= maxLength ? value : undefined;
  if (!Array.isArray(value) || value.length === 0) return undefined;
  let length = -2;
  for (const part of value) {
    if (typeof part !== 'string') return undefined;
    length += part.length + 2;
    if (length > maxLength) return undefined;
  }
  const text = value.join(', ');
  return text !== '' ? text : undefined;
}
