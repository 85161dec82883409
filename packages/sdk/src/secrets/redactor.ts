import { mapJson, someJsonString } from '../json.js';
import { FormSet } from './form-set.js';
import { formsOf, MIN_SECRET_LENGTH } from './forms.js';
import { isSecretKey } from './keys.js';

/** What stands in the place of a hidden secret, and of the value of a secret-like key. */
export const REDACTED = '[REDACTED]';

/** How many values added with `addRecent` a redactor keeps: enough for every request of a run in flight. */
const RECENT_KEPT = 64;

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
