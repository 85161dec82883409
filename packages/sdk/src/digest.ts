import { createHash } from 'node:crypto';
import { byKey } from './order.js';

/**
 * Approval binding (platform rule 9 and `reviewedDigest`): a digest of exactly
 * what will run. The same call always gives the same digest, whatever the key
 * order of its input; any change to what runs gives another.
 */

/** JSON with object keys sorted at every depth and `undefined` members dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError(`canonicalJson: ${value} has no JSON form`);
    }
    if (typeof value === 'bigint') throw new TypeError('canonicalJson: bigint has no JSON form');
    return JSON.stringify(value) ?? 'null';
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const members = Object.entries(value)
    .filter(([, inner]) => inner !== undefined && typeof inner !== 'function')
    .sort(byKey)
    .map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`);
  return `{${members.join(',')}}`;
}

export interface RunSubject {
  connector: { key: string; version: string };
  action: string;
  connectionId: string;
  environment: 'sandbox' | 'production';
  /** The validated input, after zod applied defaults: what will really be sent. */
  input: unknown;
}

export interface ApprovalBinding {
  /** `sha256:<hex>` of the canonical JSON of the subject. */
  digest: string;
  /** The first 12 hex digits, for people to compare at a glance. */
  shortDigest: string;
}

export function approvalDigest(subject: RunSubject): ApprovalBinding {
  const canonical = canonicalJson({
    action: subject.action,
    connectionId: subject.connectionId,
    connector: subject.connector.key,
    connectorVersion: subject.connector.version,
    environment: subject.environment,
    input: subject.input,
  });
  const hex = createHash('sha256').update(canonical).digest('hex');
  return { digest: `sha256:${hex}`, shortDigest: hex.slice(0, 12) };
}
