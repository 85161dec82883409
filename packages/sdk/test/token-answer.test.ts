import { describe, expect, it } from 'vitest';
import { mended } from '../src/auth/token-send.js';

/** A token answer as providers write it, read as RFC 6749 means it before oauth4webapi checks it. */

const NOW = Date.UTC(2026, 0, 1);
const read = (body: unknown) => JSON.parse(mended(JSON.stringify(body), NOW)) as Record<string, unknown>;

describe('token answer quirks', () => {
  it('a missing token_type is Bearer; one given is kept', () => {
    expect(read({ access_token: 'a' })).toEqual({ access_token: 'a', token_type: 'Bearer' });
    expect(read({ access_token: 'a', token_type: 'DPoP' })).toMatchObject({ token_type: 'DPoP' });
  });

  it('expires_in as a number, a numeric string or a date', () => {
    expect(read({ access_token: 'a', expires_in: 3600 })).toMatchObject({ expires_in: 3600 });
    expect(read({ access_token: 'a', expires_in: ' 3600 ' })).toMatchObject({ expires_in: 3600 });
    expect(read({ access_token: 'a', expires_in: '2026-01-01T01:00:00Z' })).toMatchObject({ expires_in: 3600 });
    expect(read({ access_token: 'a', expires_in: 'Thu, 01 Jan 2026 00:10:00 GMT' })).toMatchObject({ expires_in: 600 });
    // A date already past is an expired token, not a negative lifetime.
    expect(read({ access_token: 'a', expires_in: '2025-12-31T00:00:00Z' })).toMatchObject({ expires_in: 0 });
  });

  it('what cannot be read is left for oauth4webapi to refuse, naming the field', () => {
    expect(read({ access_token: 'a', expires_in: 'soon' })).toMatchObject({ expires_in: 'soon' });
    expect(mended('not json', NOW)).toBe('not json');
    expect(mended('[1]', NOW)).toBe('[1]');
  });
});
