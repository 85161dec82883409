import { formatJsonPath, mapJson, someJsonString } from './json.js';

/**
 * Secret handling shared by logs, errors and recorded fixtures: a key-name test
 * for secret-like fields, and a redactor that finds secret values anywhere in a
 * string, including their URL-encoded and base64 forms.
 */

export const REDACTED = '[REDACTED]';

/** Words that make a field name secret-like wherever they occur in it, compared without case or separators. */
const SECRET_KEY_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'token',
  'authorization',
  'authorisation',
  'credential',
  'creds',
  'privatekey',
  'accesskey',
  'signingkey',
  'clientkey',
  'sessionkey',
  'sessionid',
  'cookie',
  'signature',
  'bearer',
  'jwt',
];

/** Short names that are secret-like only on their own (`auth`, but not `authScheme` or `author`). */
const SECRET_KEY_NAMES = ['auth', 'pass', 'pwd', 'cred', 'key', 'pin'];

/** `apiKey`, `api_key`, `API-KEY`, `x-api-key` and `accessToken` all normalise to a known word. */
export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function isSecretKey(key: string, extraWords: readonly string[] = []): boolean {
  const name = normaliseKey(key);
  if (SECRET_KEY_NAMES.includes(name)) return true;
  return [...SECRET_KEY_WORDS, ...extraWords.map(normaliseKey)].some((word) => word !== '' && name.includes(word));
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

/** Every form a secret takes on the wire: as is and URL-encoded (`plain`), and inside base64 or base64url text (`encoded`). */
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
  forms = {
    plain: long([secret, encodeURIComponent(secret)]),
    encoded: long(cores.flatMap((core) => [core, core.replace(/\+/g, '-').replace(/\//g, '_')])),
  };
  if (formsCache.size >= FORMS_CACHED) formsCache.delete(formsCache.keys().next().value!);
  formsCache.set(secret, forms);
  return forms;
}

/** A character of base64 or base64url text. */
function isBase64Char(code: number): boolean {
  return (
    (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47 || code === 95 || code === 45
  );
}

/**
 * Finds secrets by plain substring search, form by form, so the time grows
 * linearly with the text whatever it holds. A base64 match takes in the whole
 * encoded run around it (and its `=` padding), whose edge characters also
 * carry bits of the secret.
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly plain: string[] = [];
  private readonly encoded: string[] = [];
  private shortest = Infinity;
  private readonly extraKeyWords: readonly string[];

  constructor(secrets: Iterable<string> = [], options: { keyWords?: readonly string[] } = {}) {
    this.extraKeyWords = options.keyWords ?? [];
    for (const secret of secrets) this.add(secret);
  }

  /** Remember a secret value; every later redaction hides it. */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    const forms = formsOf(secret);
    for (const [mine, theirs] of [
      [this.plain, forms.plain],
      [this.encoded, forms.encoded],
    ] as const) {
      for (const form of theirs) {
        if (!mine.includes(form)) mine.push(form);
        if (form.length < this.shortest) this.shortest = form.length;
      }
    }
  }

  get values(): readonly string[] {
    return [...this.secrets];
  }

  isSecretKey(key: string): boolean {
    return isSecretKey(key, this.extraKeyWords);
  }

  /** The text with every known secret value, in any of its forms, replaced. */
  redactString(text: string): string {
    if (text.length < this.shortest) return text;
    const spans: Array<[number, number]> = [];
    for (const form of this.plain) {
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + form.length)) spans.push([at, at + form.length]);
    }
    for (const form of this.encoded) {
      for (let at = text.indexOf(form); at >= 0; ) {
        let start = at;
        let end = at + form.length;
        while (start > 0 && isBase64Char(text.charCodeAt(start - 1))) start -= 1;
        while (end < text.length && isBase64Char(text.charCodeAt(end))) end += 1;
        while (text.charCodeAt(end) === 61) end += 1;
        spans.push([start, end]);
        at = text.indexOf(form, end);
      }
    }
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
    if (text.length < this.shortest) return false;
    for (const form of this.plain) if (text.includes(form)) return true;
    for (const form of this.encoded) if (text.includes(form)) return true;
    return false;
  }

  /** True when a known secret occurs in any string or key of a JSON-like value. */
  containsSecretIn(value: unknown): boolean {
    if (this.secrets.size === 0) return false;
    return typeof value === 'string' ? this.containsSecret(value) : someJsonString(value, (text) => this.containsSecret(text));
  }

  /** A deep copy with secret-like keys blanked and secret values hidden in every string and key. */
  redact<T>(value: T): T {
    return mapJson(value, {
      text: (text) => this.redactString(text),
      key: (key) => this.redactString(key),
      member: (key, inner) => (this.isSecretKey(key) && inner !== null && inner !== undefined && inner !== '' ? REDACTED : undefined),
      other: (other) => (other instanceof Error ? this.redactString(other.message) : other),
    }) as T;
  }

  /** A deep copy with secret values hidden in every string and key; keys are not judged by name (for records). */
  redactValues<T>(value: T): T {
    return mapJson(value, { text: (text) => this.redactString(text), key: (key) => this.redactString(key) }) as T;
  }
}
