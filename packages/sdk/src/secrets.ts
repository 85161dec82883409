/**
 * Secret handling shared by logs, errors and recorded fixtures: a key-name test
 * for secret-like fields, and a redactor that finds secret values anywhere in a
 * string, including their URL-encoded and base64 forms.
 */

export const REDACTED = '[REDACTED]';

/** Words that make a field name secret-like, compared without case or separators. */
const SECRET_KEY_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'token',
  'authorization',
  'credential',
  'privatekey',
  'accesskey',
  'sessionkey',
  'cookie',
  'signature',
];

/** `apiKey`, `api_key`, `API-KEY`, `x-api-key` and `accessToken` all normalise to a known word. */
export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function isSecretKey(key: string, extraWords: readonly string[] = []): boolean {
  const name = normaliseKey(key);
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

/** The forms a secret value takes on the wire: as is, URL-encoded, and base64 (alone or in Basic auth). */
function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret, encodeURIComponent(secret)]);
  for (const base64 of [
    Buffer.from(secret).toString('base64'),
    Buffer.from(`${secret}:`).toString('base64'),
    Buffer.from(`:${secret}`).toString('base64'),
  ]) {
    // Padding varies with what surrounds the secret; match the stable core.
    forms.add(base64.replace(/=+$/, ''));
    forms.add(base64.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
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
    const forms = [...this.secrets].flatMap(secretForms).sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'g');
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
    return this.redactDeep(value, new WeakSet()) as T;
  }

  private redactDeep(value: unknown, seen: WeakSet<object>): unknown {
    if (typeof value === 'string') return this.redactString(value);
    if (value instanceof Error) return this.redactString(value.message);
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((item) => this.redactDeep(item, seen));
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        this.isSecretKey(key) && inner !== null && inner !== undefined && inner !== '' ? REDACTED : this.redactDeep(inner, seen),
      ]),
    );
  }
}
