import { formatJsonPath, mapJson, someJsonString } from './json.js';

/**
 * Secret handling shared by logs, errors and recorded fixtures: a key-name test
 * for secret-like fields, and a redactor that finds secret values anywhere in a
 * string, including their URL-encoded, hex and base64 forms.
 */

export const REDACTED = '[REDACTED]';

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

/** Secret wherever they stand: a word equal to one, or ending with one; `password`, `passwd`, `passphrase`, `passcode` and `credential` anywhere in a word. */
const SECRET_ANYWHERE = [
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'credential',
  'credentials',
  'creds',
];
const SECRET_WITHIN = ['password', 'passwd', 'passphrase', 'passcode', 'credential'];
const SECRET_ENDING = ['secret', 'secrets'];

/** Secret as the last word or words of a key (or, the longer ones, at the end of its last word: `accesstoken`, `xapikey`). */
const SECRET_NAMES = [
  'token',
  'accesstokens',
  'refreshtokens',
  'apitokens',
  'authtokens',
  'apikey',
  'apikeys',
  'accesskey',
  'accesskeyid',
  'secretkey',
  'privatekey',
  'signingkey',
  'clientkey',
  'sessionkey',
  'masterkey',
  'encryptionkey',
  'authkey',
  'hmackey',
  'licensekey',
  'sessionid',
  'sessid',
  'cookie',
  'cookies',
  'authorization',
  'authorisation',
  'authorizationcode',
  'authcode',
  'signature',
  'bearer',
  'jwt',
  'auth',
  'cred',
  'pass',
  'pw',
  'pwd',
  'pin',
  'otp',
  'totp',
  'hotp',
  'otpseed',
  'totpseed',
  'hotpseed',
  'mfaseed',
  'mfacode',
  'otpcode',
  'totpcode',
  'recoverycode',
  'recoverycodes',
  'backupcode',
  'backupcodes',
];

/** Trailing words that say how a value is written, not what it is: `token_value`, `private_key_pem`, `api_key_2`. */
const FORMAT_WORDS = new Set([
  'value',
  'val',
  'string',
  'str',
  'text',
  'raw',
  'plain',
  'plaintext',
  'encoded',
  'enc',
  'encrypted',
  'b64',
  'base64',
  'base64url',
  'hex',
  'pem',
  'der',
  'bytes',
  'data',
]);

const ANYWHERE = new Set(SECRET_ANYWHERE);
const NAMES = new Set(SECRET_NAMES);
/** Names long enough to be told apart at the end of a longer word: `accesstoken` is `access` + `token`. */
const NAME_ENDINGS = SECRET_NAMES.filter((name) => name.length >= 5);

/**
 * Cyrillic and Greek letters drawn like Latin ones, to the Latin letter (case kept, so
 * `аpiKey` still splits at the `K`).
 */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ɡ: 'g',
  А: 'A',
  В: 'B',
  Е: 'E',
  Ё: 'E',
  З: '3',
  І: 'I',
  Ї: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ѕ: 'S',
  Һ: 'H',
  Ԁ: 'D',
  Ԛ: 'Q',
  Ԝ: 'W',
  Ӏ: 'I',
  // Greek
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  σ: 'o',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Latin letters that are not plain ASCII after NFKD
  ı: 'i',
  ȷ: 'j',
  ß: 'ss',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
};

const INVISIBLE = /[\p{M}\p{Default_Ignorable_Code_Point}]/gu;
const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'gu');

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) > 127) return false;
  return true;
}

/** A key with compatibility forms, accents, invisible characters and look-alike letters made plain; case kept. */
function plainKey(key: string): string {
  if (isAscii(key)) return key;
  return key
    .normalize('NFKD')
    .replace(INVISIBLE, '')
    .replace(CONFUSABLE, (char) => CONFUSABLES[char]!);
}

/** `apiKey`, `api_key`, `API-KEY`, `x-api-key`, `аpiKey` (Cyrillic а) and `accessToken` all normalise to text a known word is found in. */
export function normaliseKey(key: string): string {
  return plainKey(key)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

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
function forEachWord(key: string, visit: (word: string) => boolean, ignoreCase = false): boolean {
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

/** The words of a key, lower case, as rule 10 reads them (`APIKey2` is `api`, `key`, `2`). */
export function keyWords(key: string): string[] {
  const words: string[] = [];
  forEachWord(key, (word) => {
    words.push(word);
    return false;
  });
  return words;
}

/** The lengths of the words `SECRET_ANYWHERE` holds, to skip joining runs that cannot match. */
const LONGEST_ANYWHERE = Math.max(...SECRET_ANYWHERE.map((word) => word.length));
const SHORTEST_ANYWHERE = Math.min(...SECRET_ANYWHERE.map((word) => word.length));

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

/** Secrets shorter than this are not searched by value: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 6;

/**
 * The parts of any base64 text that carry the secret: a secret inside a larger
 * encoded value (Basic auth, a token envelope) encodes differently at each of
 * the three byte offsets, so each offset gives its own stable core.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = offset === 0 ? 0 : 4;
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4;
    return encoded.slice(start, end);
  });
}

/** Every form a secret takes on the wire: as is, URL-encoded and hex-encoded in lower or upper case (`plain`), and inside base64 or base64url text (`encoded`). */
interface SecretForms {
  plain: readonly string[];
  encoded: readonly string[];
}

/** Forms of recent secrets: a process runs many actions with the same credential. */
const formsCache = new Map<string, SecretForms>();
const FORMS_CACHED = 256;

function formsOf(secret: string): SecretForms {
  let forms = formsCache.get(secret);
  if (forms) return forms;
  const long = (list: Iterable<string>) => [...new Set(list)].filter((form) => form.length >= MIN_SECRET_LENGTH);
  const cores = base64Cores(secret);
  const hex = Buffer.from(secret).toString('hex');
  forms = {
    plain: long([secret, encodeURIComponent(secret), hex, hex.toUpperCase()]),
    encoded: long(cores.flatMap((core) => [core, core.replace(/\+/g, '-').replace(/\//g, '_')])),
  };
  if (formsCache.size >= FORMS_CACHED) formsCache.delete(formsCache.keys().next().value!);
  formsCache.set(secret, forms);
  return forms;
}

/** A character of base64 or base64url text. */
function isBase64Char(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47 ||
    code === 95 ||
    code === 45
  );
}

/** How many values added with `addRecent` a redactor keeps: enough for every request of a run in flight. */
export const RECENT_KEPT = 64;

/** Up to this many forms, each is searched for on its own with the engine's substring search; from there on, through an index. */
const SEARCHED_ONE_BY_ONE = 48;

/** How many lists of forms an index has: forms share one when their first three characters hash alike. */
const INDEX_SLOTS = 16384;

/** Stops a search at the first form found. */
const FOUND = () => true;

/** The slot of the first three characters of a form, or of text at a place (a small integer: no allocation per place). */
function slotAt(text: string, at: number): number {
  return (text.charCodeAt(at) * 961 + text.charCodeAt(at + 1) * 31 + text.charCodeAt(at + 2)) & (INDEX_SLOTS - 1);
}

/**
 * The forms of some secrets, and where they occur in a text. A few forms are searched for one
 * by one; many (a recording that learned a token from every record of a page, a run that
 * signs every request) through an index by their first three characters, so the text is read
 * once whatever their number instead of once per form. A base64 match takes in the whole
 * encoded run around it (and its `=` padding), whose edge characters also carry bits of the
 * secret.
 */
class FormSet {
  private readonly plain: string[] = [];
  private readonly encoded: string[] = [];
  private readonly known = new Set<string>();
  private index: Array<Array<{ form: string; encoded: boolean }> | undefined> | undefined;
  shortest = Infinity;

  add(forms: SecretForms): void {
    for (const [list, encoded] of [
      [forms.plain, false],
      [forms.encoded, true],
    ] as const) {
      for (const form of list) {
        if (this.known.has(form)) continue;
        this.known.add(form);
        (encoded ? this.encoded : this.plain).push(form);
        if (form.length < this.shortest) this.shortest = form.length;
        this.index = undefined;
      }
    }
  }

  /** Whether any form occurs in the text (no callback: this runs for every string of every record). */
  contains(text: string): boolean {
    if (text.length < this.shortest) return false;
    if (this.known.size > SEARCHED_ONE_BY_ONE) return this.findIndexed(text, FOUND);
    for (const form of this.plain) if (text.includes(form)) return true;
    for (const form of this.encoded) if (text.includes(form)) return true;
    return false;
  }

  /** Calls `found` with each stretch `[start, end)` of the text a form takes up until it returns true; whether it did. */
  find(text: string, found: (start: number, end: number) => boolean | void): boolean {
    if (text.length < this.shortest) return false;
    if (this.known.size > SEARCHED_ONE_BY_ONE) return this.findIndexed(text, found);
    for (const form of this.plain) {
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + form.length))
        if (found(at, at + form.length)) return true;
    }
    for (const form of this.encoded) {
      for (let at = text.indexOf(form); at >= 0; ) {
        const [start, end] = base64Run(text, at, at + form.length);
        if (found(start, end)) return true;
        at = text.indexOf(form, end);
      }
    }
    return false;
  }

  private findIndexed(text: string, found: (start: number, end: number) => boolean | void): boolean {
    if (!this.index) {
      this.index = new Array(INDEX_SLOTS);
      for (const [list, encoded] of [
        [this.plain, false],
        [this.encoded, true],
      ] as const) {
        for (const form of list) (this.index[slotAt(form, 0)] ??= []).push({ form, encoded });
      }
    }
    // A base64 match already took in the whole run: a later match inside it adds nothing.
    let runEnd = 0;
    for (let at = 0; at <= text.length - this.shortest; at += 1) {
      const bucket = this.index[slotAt(text, at)];
      if (!bucket) continue;
      for (const { form, encoded } of bucket) {
        if (!text.startsWith(form, at)) continue;
        if (!encoded) {
          if (found(at, at + form.length)) return true;
        } else if (at >= runEnd) {
          const [start, end] = base64Run(text, at, at + form.length);
          runEnd = end;
          if (found(start, end)) return true;
        }
      }
    }
    return false;
  }
}

/** The whole base64 run around `[start, end)`, and its `=` padding. */
function base64Run(text: string, start: number, end: number): [number, number] {
  let from = start;
  let to = end;
  while (from > 0 && isBase64Char(text.charCodeAt(from - 1))) from -= 1;
  while (to < text.length && isBase64Char(text.charCodeAt(to))) to += 1;
  while (text.charCodeAt(to) === 61) to += 1;
  return [from, to];
}

/**
 * Finds secrets by plain substring search, so the time grows linearly with the text whatever
 * it holds, and with their number only until there are many (see `FormSet`).
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly forms = new FormSet();
  private readonly extraKeyWords: readonly string[];
  /** Values that matter for a while (a signer's signatures), oldest first, at most `RECENT_KEPT`. */
  private readonly recent = new Set<string>();
  private recentForms = new FormSet();

  constructor(secrets: Iterable<string> = [], options: { keyWords?: readonly string[] } = {}) {
    this.extraKeyWords = options.keyWords ?? [];
    for (const secret of secrets) this.add(secret);
  }

  /** Remember a secret value; every later redaction hides it. */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.forms.add(formsOf(secret));
  }

  /**
   * Remember a value that matters only for a while, such as a request's signature: the latest
   * `RECENT_KEPT` are hidden as secrets are, so a run that signs every request keeps a redactor
   * of bounded size.
   */
  addRecent(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.secrets.has(value) || this.recent.has(value)) return;
    this.recent.add(value);
    if (this.recent.size > RECENT_KEPT) this.recent.delete(this.recent.values().next().value!);
    this.recentForms = new FormSet();
    for (const kept of this.recent) this.recentForms.add(formsOf(kept));
  }

  get values(): readonly string[] {
    return [...this.secrets, ...this.recent];
  }

  isSecretKey(key: string): boolean {
    return isSecretKey(key, this.extraKeyWords);
  }

  /** The text with every known secret value, in any of its forms, replaced. */
  redactString(text: string): string {
    if (text.length < this.forms.shortest && text.length < this.recentForms.shortest) return text;
    const spans: Array<[number, number]> = [];
    const found = (start: number, end: number) => {
      spans.push([start, end]);
    };
    this.forms.find(text, found);
    this.recentForms.find(text, found);
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let from = 0;
    let [start, end] = spans[0]!;
    for (const [nextStart, nextEnd] of spans) {
      if (nextStart < end) {
        end = Math.max(end, nextEnd);
        continue;
      }
      out += `${text.slice(from, start)}${REDACTED}`;
      from = end;
      [start, end] = [nextStart, nextEnd];
    }
    return `${out}${text.slice(from, start)}${REDACTED}${text.slice(end)}`;
  }

  /** True when a known secret value, in any of its forms, occurs in the text. */
  containsSecret(text: string): boolean {
    return this.forms.contains(text) || this.recentForms.contains(text);
  }

  /** True when a known secret occurs in any string or key of a JSON-like value. */
  containsSecretIn(value: unknown): boolean {
    if (this.secrets.size === 0 && this.recent.size === 0) return false;
    return typeof value === 'string'
      ? this.containsSecret(value)
      : someJsonString(value, (text) => this.containsSecret(text));
  }

  /** A deep copy with secret-like keys blanked and secret values hidden in every string and key. */
  redact<T>(value: T): T {
    return mapJson(value, {
      text: (text) => this.redactString(text),
      key: (key) => this.redactString(key),
      member: (key, inner) =>
        this.isSecretKey(key) && inner !== null && inner !== undefined && inner !== '' ? REDACTED : undefined,
      other: (other) => (other instanceof Error ? this.redactString(other.message) : other),
    }) as T;
  }

  /** A deep copy with secret values hidden in every string and key; keys are not judged by name (for records). */
  redactValues<T>(value: T): T {
    return mapJson(value, { text: (text) => this.redactString(text), key: (key) => this.redactString(key) }) as T;
  }
}
