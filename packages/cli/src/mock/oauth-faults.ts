import type { Clock } from '@plugboard/sdk/host';
import { Refusal } from './refusal.js';

/**
 * How `plugboard mock --token-fault KIND` makes the stand-in's token endpoint fail, for an author
 * to see what a connection does when the provider's does: `invalid_grant` refuses every code
 * exchange and refresh (the grant expired or was revoked: sign in again), `5xx` answers every
 * token request 503 `temporarily_unavailable`, `slow` holds every token answer `SLOW_MS` on the
 * mock's clock (longer than a client's token request timeout).
 */

export const TOKEN_FAULTS = ['invalid_grant', '5xx', 'slow'] as const;
export type TokenFault = (typeof TOKEN_FAULTS)[number];

/** Longer than the SDK's token request timeout (10 s). */
export const SLOW_MS = 15_000;

/** Applies the fault to a token request of `grantType`: throws the refusal it makes, or resolves when the answer may go. */
export async function applyTokenFault(fault: TokenFault | undefined, grantType: string, clock: Clock): Promise<void> {
  if (fault === '5xx')
    throw new Refusal(503, 'temporarily_unavailable', 'the token endpoint is failing (--token-fault 5xx)');
  if (fault === 'invalid_grant' && (grantType === 'refresh_token' || grantType === 'authorization_code'))
    throw new Refusal(400, 'invalid_grant', 'the grant is refused (--token-fault invalid_grant)');
  if (fault === 'slow') await new Promise<void>((resolve) => clock.setTimer(resolve, SLOW_MS));
}
