import { plainKey } from './look-alikes.js';

const UPPER = /\p{Lu}/u;
const LETTER = /\p{L}/u;

/** 0 not part of a word, 1 lower-case letter (or a letter without case), 2 upper-case letter, 3 digit. */
function kindOf(code: number, char: string): 0 | 1 | 2 | 3 {
  if (code >= 97 && code <= 122) return 1;
  if (code >= 65 && code <= 90) return 2;
  if (code >= 48 && code <= 57) return 3;
  if (code < 128) return 0;
  if (!LETTER.test(char)) return 0;
  return UPPER.test(char) ? 2 : 1;
}

/**
 * Calls `visit` with each word of a key, lower case, in order: the key is split at
 * separators, between letters and digits, before an upper-case letter that follows a
 * lower-case one (`apiKey`), and before the last capital of a run followed by a lower-case
 * letter (`APIKey` is `api key`); with `ignoreCase`, at separators and digits only
 * (`pAsSwOrD` is `password`). One pass over the key; a visit that returns true stops it.
 */
export function forEachWord(key: string, visit: (word: string) => boolean, ignoreCase = false): boolean {
  const text = plainKey(key);
  let start = -1;
  let previous = 0;
  for (let index = 0; index <= text.length; index += 1) {
    let kind = index < text.length ? kindOf(text.charCodeAt(index), text[index]!) : 0;
    if (ignoreCase && kind === 2) kind = 1;
    let boundary = kind === 0 || (previous !== 0 && (previous === 3) !== (kind === 3));
    if (!boundary && kind === 2 && previous === 1) boundary = true;
    if (!boundary && kind === 1 && previous === 2 && start >= 0 && index - start >= 2) {
      // `APIKey`: the `K` starts the next word.
      if (visit(text.slice(start, index - 1).toLowerCase())) return true;
      start = index - 1;
    }
    if (boundary && start >= 0) {
      if (visit(text.slice(start, index).toLowerCase())) return true;
      start = -1;
    }
    if (kind !== 0 && start < 0) start = index;
    previous = kind;
  }
  return false;
}
