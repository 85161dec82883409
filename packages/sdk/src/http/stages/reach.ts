import { HeldBack } from '../budget-rules.js';
import { causeCode } from '../error-code.js';
import type { Send } from './stage.js';

/** Tells whether a request that failed without an answer may have reached the provider. */
export interface Reach {
  mayHaveArrived: boolean;
}

/** Connection failures that say nothing was written: the provider cannot have seen the request. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'address_refused']);

/**
 * Right above the transport of a token request: a failure that may have come after the request
 * was written marks `reach` (a refresh token it carried may have been spent). A budget's hold
 * and a connection that never opened do not.
 */
export function reachWatch(reach: Reach, next: Send): Send {
  return (call) =>
    next(call).catch((error: unknown) => {
      if (!(error instanceof HeldBack) && !NOT_SENT.has(causeCode(error) ?? '')) reach.mayHaveArrived = true;
      throw error;
    });
}
