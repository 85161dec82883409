import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalogue } from '../src/index.js';
import { launchChromium } from './support/chromium.js';
import { PACK } from './support/connectors.js';
import { tempDir } from './support/run.js';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

async function visibleKeys(page: Page): Promise<string[]> {
  return page.locator('#connector-list > li.connector:visible').evaluateAll((items) => items.map((item) => item.getAttribute('data-key') ?? ''));
}

describe('the static catalogue site (index.html) in headless Chromium', () => {
  it('opens from the file system with no request, searches and filters, and renders a full-page screenshot', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir, generatedAt: '2026-10-01T08:00:00Z' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const url = pathToFileURL(join(outDir, 'index.html')).href;
    await page.goto(url);

    await expect.poll(() => page.locator('#result-count').textContent()).toBe('3 of 3 connectors');
    expect(await visibleKeys(page)).toEqual(['clips', 'notes', 'shop']);

    // Typing in the search box narrows the list.
    const search = page.locator('#search');
    await search.pressSequentially('render');
    expect(await visibleKeys(page)).toEqual(['clips']);
    expect(await page.locator('#result-count').textContent()).toBe('1 of 3 connectors');
    await search.fill('');
    await search.pressSequentially('Item');
    expect(await visibleKeys(page)).toEqual(['shop']);
    await search.fill('export note');
    expect(await visibleKeys(page)).toEqual(['notes']);
    await search.fill('nothing-like-this');
    expect(await visibleKeys(page)).toEqual([]);
    expect(await page.locator('#empty').isVisible()).toBe(true);
    await search.fill('');
    expect(await visibleKeys(page)).toEqual(['clips', 'notes', 'shop']);

    // Filters: direction, approval required, billable, category.
    await page.selectOption('#filter-direction', 'source');
    expect(await visibleKeys(page)).toEqual(['notes', 'shop']);
    await page.selectOption('#filter-direction', 'destination');
    expect(await visibleKeys(page)).toEqual(['clips', 'notes', 'shop']);
    await page.selectOption('#filter-direction', '');
    await page.check('#filter-approval');
    expect(await visibleKeys(page)).toEqual(['clips', 'shop']);
    await page.check('#filter-billable');
    expect(await visibleKeys(page)).toEqual(['shop']);
    await page.uncheck('#filter-approval');
    await page.uncheck('#filter-billable');
    await page.selectOption('#filter-category', 'media');
    expect(await visibleKeys(page)).toEqual(['clips']);
    await page.selectOption('#filter-category', '');
    expect(await page.locator('#result-count').textContent()).toBe('3 of 3 connectors');

    // A connector's operations, limitations, rate budgets and data types as field tables.
    const shop = page.locator('li.connector[data-key="shop"]');
    await shop.locator('summary').first().click();
    await expect.poll(() => shop.locator('table.operations > tbody > tr.operation').count()).toBe(2);
    expect(await shop.locator('table.operations').textContent()).toContain('orders.create');
    expect(await shop.locator('ul.limitations').textContent()).toContain('Refunds are not offered on purpose.');
    expect(await shop.locator('table.rate-budgets').textContent()).toContain('60 per minute');
    const item = shop.locator('section.data-type[data-name="Item"] table.fields').first();
    const itemFields = await item.locator('tbody tr td:first-child').allTextContents();
    expect(itemFields).toEqual(['id', 'name', 'price', 'tags', 'dimensions', 'dimensions.width', 'dimensions.height', 'updated_at']);
    expect(await item.textContent()).toContain('string (date-time)');
    const notes = page.locator('li.connector[data-key="notes"]');
    expect(await notes.locator('.badge.todo').first().textContent()).toBe('partly implemented');

    // Into the test's own temporary folder: docs/catalogue-site.png is made by scripts/screenshot-site.mjs.
    await page.screenshot({ path: join(outDir, 'screenshot.png'), fullPage: true });

    expect(errors).toEqual([]);
    expect(requests.filter((request) => !request.startsWith('file:'))).toEqual([]);
    await page.close();
  });
});
