import { describe, expect, it } from 'vitest';
import { openBrowser } from '../src/browser.js';
import { bufferIo } from './support.js';

/** `auth login` opens a browser only for a person at a terminal of a desktop; it is never asked here. */

const terminal = (env: Record<string, string>) => {
  const { io } = bufferIo(env, true);
  return { ...io, stdout: { ...io.stdout, isTTY: true } };
};

describe('opening a browser', () => {
  it('never happens without a terminal, in CI, or on Linux without a display', () => {
    expect(openBrowser(bufferIo({ DISPLAY: ':0' }, false).io, 'http://127.0.0.1:1/auth')).toBe(false);
    expect(openBrowser(terminal({ CI: 'true', DISPLAY: ':0' }), 'http://127.0.0.1:1/auth')).toBe(false);
    if (process.platform === 'linux') expect(openBrowser(terminal({}), 'http://127.0.0.1:1/auth')).toBe(false);
  });
});
