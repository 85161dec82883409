import { formatJsonPath, someJsonString } from '../json.js';
import { normaliseKey } from './look-alikes.js';
import {
  ANYWHERE,
  FORMAT_WORDS,
  LONGEST_ANYWHERE,
  NAME_ENDINGS,
  NAMES,
  SECRET_ENDING,
  SECRET_WITHIN,
  SHORTEST_ANYWHERE,
} from './vocabulary.js';
import { forEachWord } from './words.js';

/**
 * Rule 10 reads a key as words: `apiKey`, `api_key`, `API-KEY` and `x-api-key` are the words
 * `api key`; `max_tokens` is `max tokens`, which names no secret. A key is secret-like when
 * - a word, or two or three words run together, is a secret wherever it stands (`password`,
 *   `passcode`, `secret`, `credentials` ...): `db_password`, `PassWord`, `clientSecret`,
 *   `aws_creds`; or
 * - the key ends with the name of a secret (`token`, `api key`, `access token`, `cookie`,
 *   `signature`, `pw`, `otp`, `totp seed`, `session id`, `authorization` ...), trailing words
 *   that only say how the value is written (`value`, `base64`, `hex`, a number ...) aside:
 *   `access_token`, `x-auth-token`, `session_cookie`, `tokenValue`, `totp_seed`; but not
 *   `token_url`, `cookie_domain`, `signature_version`, `max_tokens` or `tokenizer_model`,
 *   which name something about a token, a cookie or a signature; or
 * - the whole key is `key`.
 * A key is read twice: as written, and with case set aside (split at separators and digits
 * only), so letters of alternating case (`pAsSwOrD`, `aPiKeY`) are read as the word they
 * spell; a key is secret-like when either reading says so. A camelCase key is thus judged at
 * least as strictly as the same key in lower case (`compassCode` as `compasscode`, which holds
 * `passcode`).
 * Before it is read, a key is normalised: compatibility forms (fullwidth letters, ligatures)
 * and accents go to plain letters, invisible characters go, and Cyrillic and Greek letters
 * that look Latin become the Latin letter (`pаssword` with a Cyrillic `а` is `password`).
 */

function isSecretWord(word: string): boolean {
  if (word.length < 4) return false;
  return (
    ANYWHERE.has(word) ||
    SECRET_WITHIN.some((stem) => word.includes(stem)) ||
    SECRET_ENDING.some((stem) => word.endsWith(stem))
  );
}

function isFormatWord(word: string): boolean {
  return FORMAT_WORDS.has(word) || isNumber(word);
}

function isNumber(word: string): boolean {
  return word.charCodeAt(0) >= 48 && word.charCodeAt(0) <= 57;
}

/**
 * Whether a word is the rest of an encoding's name that the splitter cut at its digits:
 * `base64`, `b64`, `base32` read as `base` `64`; `base64url` as `base` `64` `url`. The word
 * before the digits then says nothing of the value either.
 */
function endsEncoding(word: string, before1: string, before2: string): boolean {
  if (isNumber(word)) return before1 === 'base' || before1 === 'b';
  return word === 'url' && isNumber(before1) && (before2 === 'base' || before2 === 'b');
}

/**
 * The verdict of the built-in words for one key, in one pass that keeps only the last few
 * words: a secret word, or run of two or three, anywhere; else the name at the end (the
 * last three words up to the last one that is not a format word or a number).
 */
function judgeKey(key: string, ignoreCase: boolean): boolean {
  let before2 = '';
  let before1 = '';
  // The last three words ending at the latest word that says what the value is.
  let third = '';
  let second = '';
  let last = '';
  let meaningful = 0;
  let onlyWord = '';
  // The three words and counts before the latest meaningful word, for a `base` that turns out to start `base64`.
  let undo: [string, string, string, number, string] = ['', '', '', 0, ''];
  const found = forEachWord(
    key,
    (word) => {
      if (isSecretWord(word)) return true;
      if (before1 !== '') {
        const two = before1.length + word.length;
        if (two >= SHORTEST_ANYWHERE && two <= LONGEST_ANYWHERE && ANYWHERE.has(before1 + word)) return true;
        const three = two + before2.length;
        if (
          before2 !== '' &&
          three >= SHORTEST_ANYWHERE &&
          three <= LONGEST_ANYWHERE &&
          ANYWHERE.has(before2 + before1 + word)
        )
          return true;
      }
      const encoding = endsEncoding(word, before1, before2);
      if (encoding && isNumber(word) && last === before1) [third, second, last, meaningful, onlyWord] = undo;
      if (!encoding && !isFormatWord(word)) {
        undo = [third, second, last, meaningful, onlyWord];
        third = before2;
        second = before1;
        last = word;
        meaningful += 1;
        onlyWord = meaningful === 1 && before1 === '' ? word : '';
      }
      before2 = before1;
      before1 = word;
      return false;
    },
    ignoreCase,
  );
  if (found) return true;
  if (last === '') return false;
  if (onlyWord === 'key') return true;
  if (NAMES.has(last) || NAMES.has(second + last) || (second !== '' && NAMES.has(third + second + last))) return true;
  return NAME_ENDINGS.some((name) => last.length > name.length && last.endsWith(name));
}

/** Verdicts of recent short keys: logs and settings repeat the same few names. */
const verdicts = new Map<string, boolean>();
const VERDICTS_CACHED = 1024;

/**
 * Whether a key names a secret (rule 10; see above for how it reads a key). `extraWords`
 * are more names, found anywhere in the key once case, separators and look-alike letters are
 * set aside (`customer_ref` finds `CustomerRef` and `x-customer-ref-id`).
 */
export function isSecretKey(key: string, extraWords: readonly string[] = []): boolean {
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    // Read as written (`apiKey` is `api key`) and with case set aside: letters of alternating case
    // (`pAsSwOrD`) fall into pieces when read as written, and say nothing about where words end.
    verdict = judgeKey(key, false) || judgeKey(key, true);
    if (key.length <= 64) {
      if (verdicts.size >= VERDICTS_CACHED) verdicts.clear();
      verdicts.set(key, verdict);
    }
  }
  if (verdict || extraWords.length === 0) return verdict;
  const name = normaliseKey(key);
  return extraWords.some((word) => {
    const normalised = normaliseKey(word);
    return normalised !== '' && name.includes(normalised);
  });
}

/**
 * Whether a key only says how its value is written (`value`, `data`, `raw`, `hex_value`), the
 * words rule 10 sets aside at the end of a key: it names nothing of its own, so what it holds is
 * what the key above it names (`api_key: { value }` holds an API key).
 */
export function isFormatKey(key: string): boolean {
  let words = 0;
  let before1 = '';
  let before2 = '';
  // A `base` or `b` names nothing only when digits follow (`base64`).
  let pending = false;
  const named = forEachWord(key, (word) => {
    words += 1;
    const encoding = endsEncoding(word, before1, before2);
    if (pending && !encoding) return true;
    before2 = before1;
    before1 = word;
    pending = !encoding && (word === 'base' || word === 'b');
    return !encoding && !pending && !isFormatWord(word);
  });
  return words > 0 && !named && !pending;
}

/** Paths (`a.b[1].c`) of every secret-like key in a value, at any depth. */
export function findSecretKeys(value: unknown, extraWords: readonly string[] = []): string[] {
  const found: string[] = [];
  someJsonString(value, (text, path, isKey) => {
    if (isKey && isSecretKey(text, extraWords)) found.push(formatJsonPath(path));
  });
  return found;
}
