#!/usr/bin/env node
// Saves a full-page screenshot of a generated catalogue site, as docs/catalogue-site.png shows it:
//
//   ./pbw plugboard catalogue descript insurance --out /tmp/catalogue
//   node packages/catalogue/scripts/screenshot-site.mjs /tmp/catalogue docs/catalogue-site.png
//
// Chromium is CHROMIUM_PATH, else /usr/bin/chromium (scripts/ensure-system.sh installs it).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [dir, out] = process.argv.slice(2);
if (!dir || !out || !existsSync(join(dir, 'index.html'))) {
  console.error(
    'usage: screenshot-site.mjs CATALOGUE_DIR OUT.png   (CATALOGUE_DIR holds the index.html of `plugboard catalogue --out`)',
  );
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1500 } });
  await page.goto(pathToFileURL(resolve(dir, 'index.html')).href);
  // The first card open, with its first operation's example, as a reader who clicked would see it.
  await page.locator('li.connector > details > summary').first().click();
  await page.locator('li.connector details.example > summary').first().click();
  // The top of the page: the intro, the search, both cards and the first one open; not its whole length.
  await page.screenshot({ path: out });
  console.log(`saved ${out}`);
} finally {
  await browser.close();
}
