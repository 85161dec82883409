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

/** Paths (dotted) of every secret-like key in a value, at any depth. */
export function findSecretKeys(value: unknown, extraWords: readonly string[] = [], prefix = ''): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => findSecretKeys(item, extraWords, `${prefix}${index}.`));
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(isSecretKey(key, extraWords) ? [`${prefix}${key}`] : []),
    ...findSecretKeys(inner, extraWords, `${prefix}${key}.`),
  ]);
}

/** Secrets shorter than this are not searched by value: they would match ordinary text. */
const MIN_SECRET_LENGTH = 6;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

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

/**
 * A pattern for every form a secret takes on the wire: as is, URL-encoded, and
 * inside base64 or base64url text. A base64 match takes in the whole encoded
 * run around it, whose edge characters also carry bits of the secret.
 */
function secretPattern(secrets: Iterable<string>): RegExp {
  const plain = new Set<string>();
  const encoded = new Set<string>();
  for (const secret of secrets) {
    plain.add(secret);
    plain.add(encodeURIComponent(secret));
    for (const core of base64Cores(secret)) {
      encoded.add(core);
      encoded.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  const alternatives = (forms: Set<string>) =>
    [...forms]
      .filter((form) => form.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|');
  return new RegExp(`${alternatives(plain)}|[A-Za-z0-9+/_-]*(?:${alternatives(encoded)})[A-Za-z0-9+/_-]*=*`, 'g');
}

export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | undefined;
  private readonly extraKeyWords: readonly string[];

  constructor(secrets: Iterable<string> = [], options: { keyWords?: readonly string[] } = {}) {
    this.extraKeyWords = options.keyWords ?? [];
    for (const secret of secrets) this.add(secret);
  }

  /** Remember a secret value; every later redaction hides it. */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.pattern = secretPattern(this.secrets);
  }

  get values(): readonly string[] {
    return [...this.secrets];
  }

  isSecretKey(key: string): boolean {
    return isSecretKey(key, this.extraKeyWords);
  }

  /** The text with every known secret value, in any of its forms, replaced. */
  redactString(text: string): string {
    if (!this.pattern) return text;
    this.pattern.lastIndex = 0;
    return text.replace(this.pattern, REDACTED);
  }

  /** True when a known secret value, in any of its forms, occurs in the text. */
  containsSecret(text: string): boolean {
    if (!this.pattern) return false;
    this.pattern.lastIndex = 0;
    return this.pattern.test(text);
  }

  /** A deep copy with secret-like keys blanked and secret values hidden in every string. */
  redact<T>(value: T): T {
    return this.redactDeep(value, true, new WeakSet()) as T;
  }

  /** A deep copy with secret values hidden in every string; keys are left alone (for records). */
  redactValues<T>(value: T): T {
    return this.redactDeep(value, false, new WeakSet()) as T;
  }

  private redactDeep(value: unknown, byKey: boolean, seen: WeakSet<object>): unknown {
    if (typeof value === 'string') return this.redactString(value);
    if (value instanceof Error) return this.redactString(value.message);
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((item) => this.redactDeep(item, byKey, seen));
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        byKey && this.isSecretKey(key) && inner !== null && inner !== undefined && inner !== '' ? REDACTED : this.redactDeep(inner, byKey, seen),
      ]),
    );
  }
}
