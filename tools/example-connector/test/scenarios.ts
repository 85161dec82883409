import { fileURLToPath } from 'node:url';
import type { IncrementalPair } from '@plugboard/testing/vitest';

/** Where the shop's OAuth2 fixtures live: recorded by record.test.ts, replayed by suite.test.ts. */
export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures', import.meta.url));

/** Every scenario's connection signs in with OAuth2 rather than the default bearer token. */
export const OAUTH_CONNECTION = { settings: { authScheme: 'oauth2' } };

/** The items read first, then those that arrived after its checkpoint. */
export const INCREMENTAL: IncrementalPair[] = [{ first: 'items-first', then: 'items-after' }];
