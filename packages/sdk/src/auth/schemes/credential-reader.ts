import { ConnectionConfigError } from '../../errors.js';
import { NOT_IN_HEADER } from '../../http/headers.js';
import type { TokenSet } from '../../tokens.js';

/** A credential checked against its scheme. */
export type CheckedCredential =
  | { kind: 'key'; key: string; expiresAt: number | undefined }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'oauth2'; clientId: string; clientSecret: string | undefined; tokens: TokenSet | undefined };

/** The key of a bearer, API key or custom scheme, as checked. */
export type KeyChecked = Extract<CheckedCredential, { kind: 'key' }>;
/** The username and password of HTTP Basic, as checked. */
export type BasicChecked = Extract<CheckedCredential, { kind: 'basic' }>;
/** The OAuth2 credential as checked. */
export type OAuth2Checked = Extract<CheckedCredential, { kind: 'oauth2' }>;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Reads a host resolver's answer for one scheme: every refusal is an `invalid_connection` that
 * names the part missing or wrong, never its value, and says that nothing was sent.
 */
export class CredentialReader {
  /** `connector` and `scheme` name whose credential it is (put into words only for a refusal); `shape` says in words what the scheme takes. */
  constructor(
    private readonly connector: string,
    private readonly scheme: string,
    private readonly shape: string,
  ) {}

  refuse(problem: string): never {
    throw new ConnectionConfigError(
      `connector '${this.connector}': the credential of auth scheme '${this.scheme}' ${problem}; nothing was sent`,
    );
  }

  /** The answer as an object, or a refusal saying what was expected. */
  record(value: unknown): Record<string, unknown> {
    return isRecord(value) ? value : this.refuse(`must be ${this.shape}, not ${describe(value)}`);
  }

  /** A non-empty string; `inHeader` when it travels in a header, which cannot carry a line break. */
  text(part: string, found: unknown, inHeader: boolean): string {
    if (typeof found !== 'string' || found === '')
      return this.refuse(
        `needs ${part} (a non-empty string)${found === undefined ? '' : `, not ${found === '' ? 'an empty string' : describe(found)}`}`,
      );
    // A credential read from a file often ends in a line break: no header can carry it, and no retry would.
    if (inHeader && NOT_IN_HEADER.test(found))
      this.refuse(
        `has ${part} holding a line break or another character an HTTP header cannot carry (a trailing newline from a file?)`,
      );
    return found;
  }

  /** As `text`, when the part may be left out. */
  optionalText(part: string, found: unknown, inHeader: boolean): string | undefined {
    return found === undefined ? undefined : this.text(part, found, inHeader);
  }

  /** A time in milliseconds since the epoch, when given. */
  expiry(part: string, found: unknown): number | undefined {
    if (found === undefined) return undefined;
    return typeof found === 'number' && Number.isFinite(found)
      ? found
      : this.refuse(`has ${part} that is not a time in milliseconds since the epoch`);
  }
}
