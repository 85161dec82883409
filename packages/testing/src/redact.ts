import {
  formatJsonPath,
  isFormatKey,
  isSecretKey,
  MIN_SECRET_LENGTH,
  mapJson,
  normaliseKey,
  REDACTED,
  Redactor,
  someJsonString,
} from '@plugboard/sdk/host';
import type { Fixture, RecordedCall, RecordedHeaders, RecordedRequest, RecordedResponse } from './fixture.js';

/**
 * Redaction of a recording before anything is written. Two passes:
 *
 * 1. learn: every value found under a secret-like name (an `Authorization` or
 *    cookie header, an `access_token` query parameter, a `password` field of a
 *    JSON body) joins the secret values the connection used (its credential
 *    and any `secrets` given), so it is hidden wherever else it shows up;
 * 2. redact: secret-like names get `[REDACTED]` as their value (headers, query
 *    parameters, form fields, JSON fields at any depth); then every secret
 *    value is replaced wherever it occurs, as is, URL- or form-encoded,
 *    JSON-escaped, base64 or base64url (through the SDK's `Redactor`).
 *
 * A JSON value is judged by its own name: the nearest key above it, array
 * indices and names that only say how or where a value is held (`value`,
 * `data`, `current`) aside, so `api_keys: [...]` and `api_key: { value }` are secrets but
 * `secret_scanning: { status: 'enabled' }` is not. Only string values are
 * redacted by name (a number under `max_tokens` is not a secret), and text
 * that cannot be a secret (a date, `true`, `Bearer`) stays: replacing it would
 * break the recorded answer's schema. `leaks()` then looks for any secret
 * value left, and recording fails on one.
 */

export interface RedactionOptions {
  /** Secret values the run used: the credential and any other. */
  secrets?: readonly string[];
  /** More names of secret fields, headers and parameters; found anywhere in a name, case, separators and look-alike letters aside. */
  redactKeys?: readonly string[];
  /** Names that look secret but are not (e.g. `next_page_token` when it must stay readable); matched whole, case and separators ignored. */
  keepKeys?: readonly string[];
}

/** Secret-like names beyond the SDK's words (password, secret, token, api key, authorization, credential, cookie, signature ...), found anywhere in a name. */
export const DEFAULT_REDACT_KEYS: readonly string[] = ['sessionid', 'csrf', 'xsrf', 'jwt'];

const SCHEMES = 'bearer|basic|token|digest|bot|apikey|sso-key';
const AUTH_SCHEME = new RegExp(`^(${SCHEMES})\\s+(.+)$`, 'i');

/** Text no secret looks like: an ISO 8601 date or date-time, `true`/`false`, an auth scheme's name. */
const NOT_A_SECRET = new RegExp(
  `^(?:\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}(?::?\\d{2})?)?)?|true|false|${SCHEMES})$`,
  'i',
);

/**
 * Keys that name a slot rather than a thing: like `value` or `data`, what they hold is what the
 * key above them names (`signing_key: { current, previous }`; a JSON Web Key's private members
 * under `private_key`, RFC 7518 section 6).
 */
const SLOT_KEYS = new Set([
  'current',
  'previous',
  'primary',
  'secondary',
  'old',
  'new',
  'd',
  'p',
  'q',
  'dp',
  'dq',
  'qi',
  'k',
]);

/** Whether a key passes the verdict on the name above it through: it says only how, or in which slot, a value is held. */
function isHolderKey(key: string): boolean {
  return isFormatKey(key) || SLOT_KEYS.has(normaliseKey(key));
}

/** Whether a string held under a secret-like name is redacted: empty text and text no secret looks like stay. */
function mayBeSecret(text: string): boolean {
  return text !== '' && !NOT_A_SECRET.test(text);
}

export class FixtureRedactor {
  private readonly values: Redactor;
  private readonly keyWords: readonly string[];
  private readonly keep: ReadonlySet<string>;

  constructor(options: RedactionOptions = {}) {
    this.keyWords = [...DEFAULT_REDACT_KEYS, ...(options.redactKeys ?? [])];
    this.keep = new Set((options.keepKeys ?? []).map(normaliseKey));
    this.values = new Redactor();
    for (const secret of options.secrets ?? []) this.addSecret(secret);
  }

  /** The secret values known so far (each in its plain form). */
  get secrets(): readonly string[] {
    return this.values.values;
  }

  isSecretKey(key: string): boolean {
    return !this.keep.has(normaliseKey(key)) && isSecretKey(key, this.keyWords);
  }

  /** Remembers a secret value, with the encodings the SDK's redactor does not derive itself. */
  addSecret(secret: string | undefined): void {
    if (!secret || secret === REDACTED) return;
    const forms = new Set<string>([secret]);
    forms.add(new URLSearchParams({ v: secret }).toString().slice(2));
    forms.add(encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escaped) => escaped.toLowerCase()));
    forms.add(JSON.stringify(secret).slice(1, -1));
    for (const form of forms) this.values.add(form);
  }

  containsSecret(text: string): boolean {
    return this.values.containsSecret(text);
  }

  redactText(text: string): string {
    return this.values.redactString(text);
  }

  // ---- pass 1: learn the values held under secret-like names ----

  /** Learns from a JSON value: strings named as secrets at any depth, long enough to be found again. */
  learnJson(value: unknown): void {
    this.mapNamed(value, false, (text, secret) => {
      if (secret && text.length >= MIN_SECRET_LENGTH && mayBeSecret(text)) this.addSecret(text);
      return text;
    });
  }

  learnHeaders(headers: RecordedHeaders | undefined): void {
    for (const [name, value] of headerValues(headers)) {
      if (!this.isSecretKey(name)) continue;
      if (/cookie/i.test(name)) {
        for (const pair of cookiePairs(name, value)) this.addSecret(pair.value);
        continue;
      }
      const scheme = AUTH_SCHEME.exec(value);
      if (scheme) {
        const credentials = scheme[2]!.trim();
        this.addSecret(credentials);
        if (scheme[1]!.toLowerCase() === 'basic') {
          const decoded = Buffer.from(credentials, 'base64').toString('utf8');
          const colon = decoded.indexOf(':');
          if (colon !== -1) this.addSecret(decoded.slice(colon + 1));
        }
      } else {
        this.addSecret(value);
      }
    }
  }

  /** Learns from `a=1&token=x`: the values of secret-like parameters. */
  learnQuery(search: string): void {
    for (const [name, value] of new URLSearchParams(search)) if (this.isSecretKey(name)) this.addSecret(value);
  }

  learnCall(call: RecordedCall): void {
    this.learnHeaders(call.request.headers);
    this.learnHeaders(call.response.headers);
    const at = call.request.path.indexOf('?');
    if (at !== -1) this.learnQuery(call.request.path.slice(at + 1));
    if (isFormBody(call.request) && typeof call.request.body === 'string') this.learnQuery(call.request.body);
    if (call.request.bodyType === 'json') this.learnJson(call.request.body);
    if (call.response.bodyType === 'json') this.learnJson(call.response.body);
  }

  // ---- pass 2: redact ----

  /** A deep copy with secret-like keys' string values replaced and secret values hidden everywhere, keys included. */
  redactJson<T>(value: T): T {
    return this.mapNamed(
      value,
      false,
      (text, secret) => (secret && mayBeSecret(text) ? REDACTED : this.redactText(text)),
      (key) => this.redactText(key),
    ) as T;
  }

  /**
   * A copy of a JSON value with each string passed through `text`, told whether its own name is
   * secret-like: the nearest key above it, array indices and holder keys (`api_key: { value }`,
   * `signing_key: { current }`) passing the verdict of the key above them through.
   */
  private mapNamed(
    value: unknown,
    secret: boolean,
    text: (text: string, secret: boolean) => unknown,
    key?: (key: string) => string,
  ): unknown {
    return mapJson(value, {
      text: (inner) => text(inner, secret),
      ...(key ? { key } : {}),
      member: (name, inner) => {
        if (isHolderKey(name)) return undefined;
        const named = this.isSecretKey(name);
        return named === secret ? undefined : this.mapNamed(inner, named, text, key);
      },
    });
  }

  redactHeaders(headers: RecordedHeaders | undefined): RecordedHeaders | undefined {
    if (!headers) return undefined;
    const redact = (name: string, value: string): string => {
      if (!this.isSecretKey(name)) return this.redactText(value);
      if (/cookie/i.test(name)) return this.redactText(redactCookies(name, value));
      const scheme = AUTH_SCHEME.exec(value);
      return scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
    };
    // A header that came more than once keeps each value, each redacted on its own.
    return Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.map((item) => redact(name, item)) : redact(name, value),
      ]),
    );
  }

  /** `a=1&token=x` with the values of secret-like parameters replaced, the rest byte for byte. */
  redactQueryText(search: string): string {
    return search
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        if (equals === -1) return pair;
        const name = pair.slice(0, equals);
        let decoded = name;
        try {
          decoded = decodeURIComponent(name.replace(/\+/g, ' '));
        } catch {
          // A broken escape stays as it is.
        }
        return this.isSecretKey(decoded) && equals < pair.length - 1 ? `${name}=${REDACTED}` : pair;
      })
      .join('&');
  }

  redactPath(path: string): string {
    const at = path.indexOf('?');
    const redacted = at === -1 ? path : `${path.slice(0, at)}?${this.redactQueryText(path.slice(at + 1))}`;
    return this.redactText(redacted);
  }

  private redactRequest(request: RecordedRequest): RecordedRequest {
    let body = request.body;
    if (request.bodyType === 'json') body = this.redactJson(body);
    else if (typeof body === 'string') body = this.redactText(isFormBody(request) ? this.redactQueryText(body) : body);
    return definedOnly({
      ...request,
      path: this.redactPath(request.path),
      headers: this.redactHeaders(request.headers),
      body,
    });
  }

  private redactResponse(response: RecordedResponse): RecordedResponse {
    let body = response.body;
    if (response.bodyType === 'json') body = this.redactJson(body);
    else if (response.bodyType === 'hex' && typeof body === 'string') body = this.redactBytes(body);
    else if (typeof body === 'string') body = this.redactText(body);
    return definedOnly({ ...response, headers: this.redactHeaders(response.headers), body });
  }

  /** Binary bodies: a secret's bytes are overwritten in place of its ASCII text. */
  private redactBytes(hex: string): string {
    const text = Buffer.from(hex, 'hex').toString('latin1');
    return this.containsSecret(text) ? Buffer.from(this.redactText(text), 'latin1').toString('hex') : hex;
  }

  redactCall(call: RecordedCall): RecordedCall {
    return definedOnly({
      ...call,
      request: this.redactRequest(call.request),
      response: this.redactResponse(call.response),
    });
  }

  /** Learns from the whole fixture first, then redacts all of it. */
  redactFixture(fixture: Fixture): Fixture {
    for (const call of fixture.calls) this.learnCall(call);
    this.learnJson(fixture.scenario);
    this.learnJson(fixture.outcome);
    return {
      ...fixture,
      scenario: this.redactJson(fixture.scenario),
      calls: fixture.calls.map((call) => this.redactCall(call)),
      outcome: this.redactJson(fixture.outcome),
    };
  }

  /** Where a secret value is still present (paths like `calls[1].response.body.token`); empty when none. */
  leaks(value: unknown): string[] {
    const found = new Set<string>();
    someJsonString(value, (text, at, isKey) => {
      const path = `${formatJsonPath(at)}${isKey ? ' (key)' : ''}`;
      if (this.containsSecret(text)) found.add(path);
      if (!isKey && at.at(-1) === 'body' && /^(?:[0-9a-f]{2})+$/.test(text)) {
        const bytes = Buffer.from(text, 'hex');
        if (this.containsSecret(bytes.toString('latin1')) || this.containsSecret(bytes.toString('utf8')))
          found.add(`${path} (binary)`);
      }
    });
    return [...found];
  }
}

/** Each header value with its name: a header that came more than once gives each of its values. */
function headerValues(headers: RecordedHeaders | undefined): [string, string][] {
  return Object.entries(headers ?? {}).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((item): [string, string] => [name, item]),
  );
}

function isFormBody(request: RecordedRequest): boolean {
  const type = headerValues(request.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  return /application\/x-www-form-urlencoded/i.test(type);
}

function cookiePairs(header: string, value: string): { name: string; value: string }[] {
  // `Set-Cookie: sid=abc; Path=/; HttpOnly` carries one pair; `Cookie: a=1; b=2` carries several.
  const parts = /^set-cookie$/i.test(header) ? value.split(';').slice(0, 1) : value.split(';');
  return parts
    .map((part) => part.trim())
    .filter((part) => part.includes('='))
    .map((part) => ({ name: part.slice(0, part.indexOf('=')), value: part.slice(part.indexOf('=') + 1) }));
}

function redactCookies(header: string, value: string): string {
  const parts = value.split(';');
  const count = /^set-cookie$/i.test(header) ? 1 : parts.length;
  return parts
    .map((part, index) => {
      if (index >= count || !part.includes('=')) return part;
      const equals = part.indexOf('=');
      return part.slice(equals + 1).trim() === '' ? part : `${part.slice(0, equals)}=${REDACTED}`;
    })
    .join(';');
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}
