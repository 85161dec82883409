/**
 * How much of a value an error message quotes. Provider text and a caller's input are
 * hostile: an error, a log line or a CLI message quotes a short excerpt of each value,
 * never the whole of it.
 */

/** The most characters of one value a message quotes. */
export const EXCERPT_LENGTH = 200;

/**
 * The text when it is short, else its first `max` characters, an ellipsis and its whole
 * length: `aaaa… (1048576 characters)`. Redact before cutting: a secret cut in half is no
 * longer found.
 */
export function excerpt(text: string, max: number = EXCERPT_LENGTH): string {
  if (text.length <= max) return text;
  let end = max;
  // Not half of a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}
