import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * Approval binding (platform rule 9 and `reviewedDigest`): a digest of exactly
 * what will run. The same call always gives the same digest, whatever the key
 * order of its input; any change to what runs gives another.
 *
 * The contract, written out in docs/approval-digest.md so that another
 * implementation can reproduce it: SHA-256 over the RFC 8785 (JSON
 * Canonicalization Scheme) text of
 * `{ action, connectionId, connector, connectorVersion, environment, input }`,
 * as lowercase hex behind `sha256:`.
 */

/**
 * The RFC 8785 (JCS) text of a value: object keys sorted by UTF-16 code units at
 * every depth, no whitespace, numbers as ECMAScript writes them, strings with
 * JSON's minimal escaping. `undefined` members are dropped as JSON drops them
 * (and `undefined` itself gives `null`). A value with no JSON form (NaN,
 * Infinity, a bigint, a lone surrogate, a cycle) is a `TypeError`.
 */
export function canonicalJson(value: unknown): string {
  try {
    return canonicalize(value) ?? 'null';
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`canonicalJson: the value has no JSON form (${reason})`, { cause: error });
  }
}

export interface RunSubject {
  connector: { key: string; version: string };
  action: string;
  connectionId: string;
  environment: 'sandbox' | 'production';
  /** The validated input, after zod applied defaults: what will really be sent. */
  input: unknown;
}

/** The digest an approval quotes: exactly what will run (connector and version, action, connection, environment, input). */
export interface ApprovalBinding {
  /** `sha256:<hex>` of the RFC 8785 text of the subject. */
  digest: string;
  /** The first 12 hex digits, for people to compare at a glance. */
  shortDigest: string;
}

/** The object whose RFC 8785 text is hashed: the field names are part of the contract. */
function approvalObject(subject: RunSubject): Record<string, unknown> {
  return {
    action: subject.action,
    connectionId: subject.connectionId,
    connector: subject.connector.key,
    connectorVersion: subject.connector.version,
    environment: subject.environment,
    input: subject.input,
  };
}

export function approvalDigest(subject: RunSubject): ApprovalBinding {
  const hex = createHash('sha256')
    .update(canonicalJson(approvalObject(subject)), 'utf8')
    .digest('hex');
  return { digest: `sha256:${hex}`, shortDigest: hex.slice(0, 12) };
}
