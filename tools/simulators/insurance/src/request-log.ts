import type { IncomingHttpHeaders } from 'node:http';
import { CREDENTIAL_HEADERS } from './auth.js';
import type { RequestBody } from './body.js';
import type { FailureSource } from './failures.js';
import type { FailureKind } from './messages.js';

export interface RecordedRequest {
  /** Simulator clock at arrival, in ms since the epoch. */
  at: number;
  method: string;
  path: string;
  /** The query string without `?`, empty when none. */
  query: string;
  /** Request headers without the credential ones (Authorization, X-Api-Key, cookies). */
  headers: Record<string, string>;
  /** Parsed JSON; the raw text when it was not JSON; undefined when empty. */
  body: unknown;
  status: number;
  requestId: string;
  /** The matched operation, e.g. `hospital_cash.quote`; absent for 404. */
  operation?: string;
  /** Set when the answer was an injected failure. */
  failure?: { kind: FailureKind; source: FailureSource };
}

export function loggableHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || CREDENTIAL_HEADERS.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

export function loggableBody(body: RequestBody | undefined): unknown {
  if (!body || body.text === '') return undefined;
  return body.malformed ? body.text : body.json;
}
