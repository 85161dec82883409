/**
 * What a signing or verifying call is given by its caller (not by a sender), checked before any
 * work: each problem is an `InvalidInputError` issue naming the field. A secret is never quoted.
 */
import { InvalidInputError, type InputIssue } from '../errors.js';
import { eventIdProblem, isTimestampSeconds } from './fields.js';
import type { RequestHeaders } from './headers.js';

/** A field's problem, or undefined. */
type Check = (value: unknown) => string | undefined;

/** Throws the issues found, if any, as one typed error of `subject` (the function's name). */
export function refuseIssues(subject: string, issues: readonly (InputIssue | undefined)[]): void {
  const found = issues.filter((issue): issue is InputIssue => issue !== undefined);
  if (found.length > 0) throw new InvalidInputError(subject, found);
}

/** The issue of `path` when `check` finds a problem with `value`. */
export function issue(path: string, value: unknown, check: Check): InputIssue | undefined {
  const message = check(value);
  return message === undefined ? undefined : { path, message };
}

export const secretText: Check = (value) =>
  typeof value === 'string' && value !== '' ? undefined : 'must be a non-empty string';

export const seconds: Check = (value) =>
  isTimestampSeconds(value)
    ? undefined
    : 'must be whole seconds since the epoch, a non-negative integer of at most 12 digits (not milliseconds)';

export const bodyToSign: Check = (value) =>
  typeof value === 'string' || value instanceof Uint8Array ? undefined : 'must be a string or a Uint8Array';

export const rawBody: Check = (value) =>
  value instanceof Uint8Array ? undefined : 'must be the raw body as read, a Uint8Array (a Buffer is one)';

export const headerObject: Check = (value) =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? undefined
    : "must be the request's headers, an object as node:http gives them";

export const tolerance: Check = (value) =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a non-negative integer of seconds';

export const instantMs: Check = (value) =>
  typeof value === 'number' && Number.isFinite(value)
    ? undefined
    : "must be milliseconds since the epoch, a finite number from the host's clock";

export function eventId(separator: string): Check {
  return (value) => eventIdProblem(value, separator);
}

/** An ISO 8601 instant: a date, a time and a zone (`Z` or an offset). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export const optionalIsoInstant: Check = (value) =>
  value === undefined || (typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value)))
    ? undefined
    : 'must be an ISO 8601 instant with its zone, e.g. 2026-01-01T00:00:00Z';

/** What every verification is given, whatever the scheme. */
export interface VerifyInput<Secret> {
  headers: RequestHeaders;
  body: Uint8Array;
  secret: Secret;
  previousSecret?: Secret | undefined;
  previousSecretValidUntil?: string | undefined;
  now: number;
}

/** The issues of a verification's common fields; `secret` checks both secrets. */
export function verifyIssues(input: VerifyInput<unknown>, secret: Check): (InputIssue | undefined)[] {
  return [
    issue('headers', input.headers, headerObject),
    issue('body', input.body, rawBody),
    issue('secret', input.secret, secret),
    input.previousSecret === undefined ? undefined : issue('previousSecret', input.previousSecret, secret),
    issue('previousSecretValidUntil', input.previousSecretValidUntil, optionalIsoInstant),
    issue('now', input.now, instantMs),
  ];
}
