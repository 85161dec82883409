import { access, constants } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';

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

/**
 * Finds Chromium (CHROMIUM_PATH, else /usr/bin/chromium) and launches it. Tests never
 * install it: scripts/ensure-system.sh does, and `./pbw test` runs that first. Without it
 * this fails, naming the script.
 */
export async function launchChromium(): Promise<Browser> {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  try {
    await access(path, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium is missing: no executable at ${path}${process.env.CHROMIUM_PATH ? ' (CHROMIUM_PATH)' : ''}; run scripts/ensure-system.sh, which installs it`,
    );
  }
  // Playwright gives each launch a fresh temporary profile.
  return chromium.launch({ executablePath: path, args: CHROMIUM_ARGS, timeout: 60_000 });
}
