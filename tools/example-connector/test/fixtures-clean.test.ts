import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from './scenarios.js';

/** The rig's access and refresh tokens are JWTs or opaque strings; none may be committed, in any fixture. */
describe('the committed OAuth2 fixtures', () => {
  const files = readdirSync(FIXTURES_DIR).filter((name) => name.endsWith('.json'));

  it('exist, and every recorded request carries a redacted bearer token', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const fixture = JSON.parse(readFileSync(join(FIXTURES_DIR, file), 'utf8')) as {
        scenario: { connection?: { settings?: { authScheme?: string } } };
        calls: { request: { headers?: Record<string, string> } }[];
      };
      expect(fixture.scenario.connection?.settings?.authScheme, file).toBe('oauth2');
      for (const call of fixture.calls) expect(call.request.headers?.authorization, file).toBe('Bearer [REDACTED]');
    }
  });

  it('hold no JWT (an access token of the authorization server)', () => {
    for (const file of files)
      expect(readFileSync(join(FIXTURES_DIR, file), 'utf8'), file).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}/);
  });
});
