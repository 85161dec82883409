import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/ensure-chromium.sh', import.meta.url));

/** Flags that keep Chromium headless and off the network (no background fetches, updates or sync). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export type ChromiumResult = { browser: Browser; path: string } | { browser: undefined; reason: string };

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds Chromium, installing Debian's package through scripts/ensure-chromium.sh
 * when it is missing, and launches it. Without one, says why: the caller skips
 * (locally) or fails (on CI).
 */
export async function launchChromium(): Promise<ChromiumResult> {
  let path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!(await executable(path))) {
    try {
      const { stdout } = await run('bash', [SCRIPT], { timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 });
      path = stdout.trim().split('\n').pop() ?? path;
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      return { browser: undefined, reason: `Chromium is not installed and could not be installed: ${stderr.trim() || (error as Error).message}` };
    }
  }
  // A Chromium that is there but does not start is a failure, not a reason to skip.
  // Playwright gives each launch a fresh temporary profile.
  const browser = await chromium.launch({ executablePath: path, args: CHROMIUM_ARGS, timeout: 60_000 });
  return { browser, path };
}
