import { describe, expect, it } from 'vitest';
import { listenForRedirect } from '../src/loopback-redirect.js';

/** The loopback listener `auth login` waits on (RFC 8252): one redirect with the sign-in's state, then closed. */

describe('the loopback redirect', () => {
  it('listens on 127.0.0.1 and a free port, takes the first redirect carrying the state, answers it, then closes', async () => {
    const redirect = await listenForRedirect('/callback', new AbortController().signal);
    expect(redirect.uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const received = redirect.received('state-1');

    // Neither another path nor a redirect without the state (a stray or forged request) ends the wait.
    expect((await fetch(new URL('/favicon.ico', redirect.uri))).status).toBe(404);
    expect((await fetch(`${redirect.uri}?code=forged&state=other`)).status).toBe(400);
    expect((await fetch(`${redirect.uri}?code=forged`)).status).toBe(400);

    const browser = fetch(`${redirect.uri}?code=c-1&state=state-1`);
    const url = await received;
    expect(url.searchParams.get('code')).toBe('c-1');
    await redirect.finish(true, 'Signed in.');
    const page = await browser;
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('Signed in.\n');
    await expect(fetch(`${redirect.uri}?code=c-2&state=state-1`)).rejects.toThrow();
  });

  it('stops waiting and listening when the command is cancelled', async () => {
    const controller = new AbortController();
    const redirect = await listenForRedirect('/callback', controller.signal);
    const received = redirect.received('state-1');
    controller.abort();
    await expect(received).rejects.toThrow(/cancelled/);
    await expect(fetch(`${redirect.uri}?state=state-1`)).rejects.toThrow();
  });
});
