import insurance from '@plugboard/connector-insurance';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { recordedExamples } from '@plugboard/testing';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
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
  return page
    .locator('#connector-list > li.connector:visible')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-key') ?? ''));
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
    await expect.poll(() => visibleKeys(page)).toEqual(['clips', 'notes', 'shop']);

    // Typing in the search box narrows the list.
    const search = page.locator('#search');
    await search.pressSequentially('render');
    await expect.poll(() => visibleKeys(page)).toEqual(['clips']);
    await expect.poll(() => page.locator('#result-count').textContent()).toBe('1 of 3 connectors');
    await search.fill('');
    await search.pressSequentially('Item');
    await expect.poll(() => visibleKeys(page)).toEqual(['shop']);
    await search.fill('export note');
    await expect.poll(() => visibleKeys(page)).toEqual(['notes']);
    await search.fill('nothing-like-this');
    await expect.poll(() => visibleKeys(page)).toEqual([]);
    expect(await page.locator('#empty').isVisible()).toBe(true);
    await search.fill('');
    await expect.poll(() => visibleKeys(page)).toEqual(['clips', 'notes', 'shop']);

    // Filters: direction, approval required, billable, category.
    await page.selectOption('#filter-direction', 'source');
    await expect.poll(() => visibleKeys(page)).toEqual(['notes', 'shop']);
    await page.selectOption('#filter-direction', 'destination');
    await expect.poll(() => visibleKeys(page)).toEqual(['clips', 'notes', 'shop']);
    await page.selectOption('#filter-direction', '');
    await page.check('#filter-approval');
    await expect.poll(() => visibleKeys(page)).toEqual(['clips', 'shop']);
    await page.check('#filter-billable');
    await expect.poll(() => visibleKeys(page)).toEqual(['shop']);
    await page.uncheck('#filter-approval');
    await page.uncheck('#filter-billable');
    await page.selectOption('#filter-category', 'media');
    await expect.poll(() => visibleKeys(page)).toEqual(['clips']);
    await page.selectOption('#filter-category', '');
    await expect.poll(() => page.locator('#result-count').textContent()).toBe('3 of 3 connectors');

    // A connector's operations, limitations, rate budgets and data types as field tables.
    const shop = page.locator('li.connector[data-key="shop"]');
    await shop.locator('summary').first().click();
    await expect.poll(() => shop.locator('table.operations > tbody > tr.operation').count()).toBe(2);
    expect(await shop.locator('table.operations').textContent()).toContain('orders.create');
    expect(await shop.locator('ul.limitations').textContent()).toContain('Refunds are not offered on purpose.');
    expect(await shop.locator('table.rate-budgets').textContent()).toContain('60 per minute');
    const item = shop.locator('section.data-type[data-name="Item"] table.fields').first();
    const itemFields = await item.locator('tbody tr td:first-child').allTextContents();
    expect(itemFields).toEqual([
      'id',
      'name',
      'price',
      'tags',
      'dimensions',
      'dimensions.width',
      'dimensions.height',
      'updated_at',
    ]);
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

/** A connector whose descriptions hold Markdown and what a hostile provider text might. */
const hostile = defineConnector({
  key: 'marked',
  name: 'Marked',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'alpha',
  summary: 'Notes with **bold** words and `code`. <img src=x onerror="window.pwned=1">',
  auth: bearerToken(),
  baseUrl: 'https://marked.invalid',
  actions: [
    defineAction({
      key: 'notes.list',
      label: 'List notes',
      description:
        'Reads notes.\n\n- first item\n- see [the docs](https://marked.invalid/docs)\n\n[click](javascript:window.pwned=2) <script>window.pwned=3</script>',
      direction: 'source',
      entity: z.object({ id: z.string(), title: z.string() }).meta({ id: 'MarkedNote' }),
      input: z.object({ folder: z.string().min(1), limit: z.number().int().min(1).optional() }),
      async *read() {
        yield { records: [] };
      },
    }),
  ],
});

/** The command of a copy button, and the input JSON in its quotes. */
function commandInput(line: string): { action: string; input: unknown } {
  const match = /^plugboard run \S+ (\S+)(?: --connector \S+)?(?: --base-url '[^']*')? --input '(.*)'$/s.exec(line);
  if (!match) throw new Error(`not a run line: ${line}`);
  return { action: match[1]!, input: JSON.parse(match[2]!.replace(/'\\''/g, "'")) };
}

describe('cards, addresses, Markdown and examples', () => {
  it('cards open by click and by keyboard, each connector has an address that opens it, and back returns', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir, generatedAt: '2026-10-01T08:00:00Z' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const base = pathToFileURL(join(outDir, 'index.html')).href;
    await page.goto(`${base}#connector-shop`);
    const open = (key: string) =>
      page
        .locator(`li.connector[data-key="${key}"] > details`)
        .evaluate((details) => (details as unknown as { open: boolean }).open);
    await expect.poll(() => open('shop'), { timeout: 20_000 }).toBe(true);
    expect(await open('notes')).toBe(false);

    const notes = page.locator('li.connector[data-key="notes"] > details > summary');
    expect(
      await notes.evaluate(
        (summary) =>
          (globalThis as unknown as { getComputedStyle(element: unknown): { cursor: string } }).getComputedStyle(
            summary,
          ).cursor,
      ),
    ).toBe('pointer');
    expect(await notes.locator('.open-hint').innerText()).toMatch(/Show operations/);
    // The card's toggle event (which sets the address) comes after the click: wait for it, however busy the machine.
    const settled = { timeout: 20_000 };
    await notes.click();
    await expect.poll(() => open('notes'), settled).toBe(true);
    await expect.poll(() => new URL(page.url()).hash, settled).toBe('#connector-notes');
    await expect.poll(() => notes.locator('.open-hint').innerText(), settled).toMatch(/Hide/);

    await page.goBack();
    await expect.poll(() => new URL(page.url()).hash, settled).toBe('#connector-shop');

    // The keyboard: Tab reaches a card, Enter opens it.
    const clips = page.locator('li.connector[data-key="clips"] > details > summary');
    await clips.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => open('clips'), settled).toBe(true);
    expect(await page.locator('li.connector[data-key="clips"] a.permalink').getAttribute('href')).toBe(
      '#connector-clips',
    );
    await page.close();
  });

  it('renders descriptions as Markdown, with raw HTML, scripts and javascript: links inert', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: [hostile], outDir, generatedAt: '2026-10-01T08:00:00Z' });
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`${pathToFileURL(join(outDir, 'index.html')).href}#connector-marked`);
    const card = page.locator('li.connector[data-key="marked"]');
    expect(await card.locator('.summary-text strong').innerText()).toBe('bold');
    expect(await card.locator('.summary-text code').innerText()).toBe('code');
    expect(await card.locator('.summary-text').innerText()).toContain('<img src=x onerror="window.pwned=1">');
    const description = card.locator('tr.operation .description');
    expect(await description.locator('li').allInnerTexts()).toEqual(['first item', 'see the docs']);
    const links = await description
      .locator('a')
      .evaluateAll((anchors) =>
        anchors.map((anchor) => ({ href: anchor.getAttribute('href'), rel: anchor.getAttribute('rel') })),
      );
    expect(links).toEqual([{ href: 'https://marked.invalid/docs', rel: 'noreferrer noopener' }]);
    expect(await card.locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(requests.filter((request) => !request.startsWith('file:'))).toEqual([]);
    await page.close();
  });

  it('shows per operation a run line with an example input its action accepts, copied by its button, and a sample record', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: [hostile, insurance], outDir, generatedAt: '2026-10-01T08:00:00Z' });
    const page = await browser.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`${pathToFileURL(join(outDir, 'index.html')).href}#connector-marked`);
    const example = page.locator('li.connector[data-key="marked"] tr.operation details.example');
    await example.locator('summary').click();
    const line = await example.locator('.run-line code').innerText();
    // Only what the input requires: the smallest input that runs.
    expect(line).toBe(`plugboard run marked notes.list --input '{"folder":"example-folder"}'`);
    await example.locator('button.copy').click();
    expect(
      await page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      ),
    ).toBe(line);
    await expect.poll(() => example.locator('button.copy').innerText()).toBe('Copied');
    expect(JSON.parse(await example.locator('.example-record').innerText())).toEqual({
      id: 'example-id',
      title: 'example-title',
    });

    // Every operation of the insurance connector: its example input passes the action's own input schema.
    const lines = await page
      .locator('li.connector[data-key="insurance"] button.copy')
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-copy') ?? ''));
    expect(lines.length).toBe(insurance.actions.length);
    for (const text of lines) {
      const { action, input } = commandInput(text);
      expect(insurance.action(action)!.input.safeParse(input).success, text).toBe(true);
    }
    await page.close();
  });

  it('shows the recorded examples, names a package its key does not find, and says where the base URL goes', async () => {
    const outDir = await tempDir();
    const fixtures = fileURLToPath(new URL('../../../connectors/insurance/test/fixtures/', import.meta.url));
    await generateCatalogue({
      connectors: [hostile, insurance],
      outDir,
      packages: { marked: 'acme-marked' },
      examples: { insurance: recordedExamples(fixtures) },
      generatedAt: '2026-10-01T08:00:00Z',
    });
    const page = await browser.newPage();
    await page.goto(`${pathToFileURL(join(outDir, 'index.html')).href}#connector-insurance`);
    const marked = await page
      .locator('li.connector[data-key="marked"] button.copy')
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-copy') ?? ''));
    expect(marked).toEqual([
      `plugboard run marked notes.list --connector acme-marked --input '{"folder":"example-folder"}'`,
    ]);

    // The insurance connector has no base URL of its own: every line has the placeholder, said as such.
    const operation = (key: string) =>
      page.locator(`li.connector[data-key="insurance"] tr.operation[data-operation="${key}"] details.example`);
    const classic = operation('hospital_cash_classic_quotes.create');
    await classic.locator('summary').click();
    const line = await classic.locator('.run-line code').innerText();
    expect(line).toContain(
      `plugboard run insurance hospital_cash_classic_quotes.create --base-url '<provider base URL>' --input '{`,
    );
    expect(await classic.innerText()).toContain('Replace <provider base URL> with the address of the provider');
    // Recorded, redacted: the classic tier's own quote, not a sample of the shared quote type.
    expect(await classic.getAttribute('data-example')).toBe('recorded');
    expect(await classic.locator('.example-label').allInnerTexts()).toContain('Input (recorded, redacted)');
    expect(JSON.parse(await classic.locator('.example-record').innerText())).toMatchObject({ tier: 'classic' });
    const input = commandInput(line).input as Record<string, unknown>;
    expect(insurance.action('hospital_cash_classic_quotes.create')!.input.safeParse(input).success).toBe(true);
    expect(JSON.stringify(input)).not.toContain('example-');

    // Every operation has a recording, so no line carries a sampled placeholder.
    const kinds = await page
      .locator('li.connector[data-key="insurance"] details.example')
      .evaluateAll((blocks) => blocks.map((block) => block.getAttribute('data-example')));
    expect(kinds).toEqual(insurance.actions.map(() => 'recorded'));
    await page.close();
  });
});
