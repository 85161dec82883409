import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConnectorError } from '@plugboard/sdk';

/**
 * What the receiver answers a sender: the platform's TriggerDeliveryResult, with the HTTP status
 * of each reason. A refusal never says which part of a signature was wrong. A request whose body
 * was not read to its end is answered with `Connection: close` and its socket destroyed once the
 * answer is written: the rest of the body is never read. A delivery the receiver failed to handle
 * is answered `unavailable` (503, to retry) when what failed may come back, else `internal_error`.
 */

/** Why a delivery was refused, or that it repeated an accepted one: stable codes. */
export type ReasonCode =
  | 'unknown_trigger'
  | 'disabled'
  | 'rate_limited'
  | 'too_large'
  | 'signature_mismatch'
  | 'outside_tolerance'
  | 'malformed'
  | 'duplicate';

/** The HTTP status each reason is answered with. */
export const REASON_STATUS: Readonly<Record<ReasonCode, number>> = {
  unknown_trigger: 404,
  disabled: 403,
  rate_limited: 429,
  too_large: 413,
  signature_mismatch: 401,
  outside_tolerance: 401,
  malformed: 400,
  duplicate: 200,
};

/** The platform's TriggerDeliveryResult. */
export interface TriggerDeliveryResult {
  accepted: boolean;
  deliveryId?: string;
  executionId?: string | null;
  payloadSha256?: string;
  duplicate?: boolean;
  code?: string;
}

export interface Answer {
  status: number;
  result: TriggerDeliveryResult;
  /** `retry-after` of a 429, `allow` of a 405. */
  headers?: Record<string, string>;
}

/** How long a sender waits before it retries a delivery answered `unavailable`. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The answer to a delivery whose handling failed before it was answered: a typed failure worth
 * retrying (its database cannot be reached) is `unavailable`, 503 with `Retry-After`; anything
 * else `internal_error`, 500. Nothing was accepted unless the failure came after the claim.
 */
export function failureAnswer(error: unknown): Answer {
  if (error instanceof ConnectorError && error.retryable)
    return {
      status: 503,
      result: { accepted: false, code: 'unavailable' },
      headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    };
  return { status: 500, result: { accepted: false, code: 'internal_error' } };
}

/** A JSON answer, its socket closed once written when the request's body was not read to its end. */
export function sendJson(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  const unread = !request.complete;
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
    ...(unread ? { connection: 'close' } : {}),
  });
  if (unread) {
    // Reading stops here: whatever the sender still sends is dropped with the socket.
    request.pause();
    response.once('finish', () => request.socket.destroy());
  }
  response.end(text);
}

export function send(request: IncomingMessage, response: ServerResponse, answer: Answer): void {
  sendJson(request, response, answer.status, answer.result, answer.headers);
}
