import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/** oauth4webapi is the token lifecycle's: a process whose runs use no OAuth2 scheme never loads it. */

const CHILD = fileURLToPath(new URL('./support/oauth-lazy-child.mjs', import.meta.url));

describe('loading oauth4webapi', () => {
  it('a bearer run leaves it unloaded', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ ok: true, oauth4webapiLoaded: false });
  });
});
