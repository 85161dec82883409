import { spawn } from 'node:child_process';
import type { CliIo } from './io.js';

/**
 * Opens a URL in the person's browser, only when one can be there to use it: both streams are
 * a terminal, not CI, and a desktop (macOS, Windows, or a Linux display). Never waits for it
 * nor fails because of it: the URL is printed either way.
 */
export function openBrowser(io: CliIo, url: string): boolean {
  const { env } = io;
  if (!io.stdout.isTTY || !io.stderr.isTTY || env.CI) return false;
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url]
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : [];
  if (!command) return false;
  const child = spawn(command, args, { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
  return true;
}
