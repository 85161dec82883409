import { cp, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import descript from '@plugboard/connector-descript';
import { Item, itemsList, ordersCreate, shop } from '@plugboard/example-connector';
import { generateCatalogue } from '@plugboard/catalogue';
import { type Connector, defineAction, defineConnector } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../src/index.js';
import { bufferIo } from './support.js';

const { action: _lookup, ...definition } = shop;

/** The shop with another list of actions. */
function shopWith(actions: Connector['actions']): Connector {
  return defineConnector({ ...definition, actions });
}

/** The shop and one operation declared, not yet implemented. */
const withExport = shopWith([
  ...shop.actions,
  defineAction({
    key: 'exports.create',
    label: 'Export the shop',
    direction: 'destination',
    entity: z.object({ id: z.string() }).meta({ id: 'ShopExport' }),
    input: z.object({}),
  }),
]);

async function catalogueCli(
  argv: string[],
  cwd: string,
  pack: ReadonlyMap<string, Connector> = new Map(),
  env: Record<string, string> = {},
) {
  const buffers = bufferIo(env);
  const code = await runCli(['catalogue', ...argv], { ...buffers.io, cwd }, { pack });
  return { code, stdout: buffers.stdout(), stderr: buffers.stderr() };
}

const tempDir = () => mkdtemp(join(tmpdir(), 'plugboard-cli-catalogue-'));

const EXAMPLE = fileURLToPath(new URL('../../../tools/example-connector', import.meta.url));

/** A connector package named otherwise than `@plugboard/connector-<key>`, with the shop's recordings in its test/fixtures. */
async function acmeShop(parent: string): Promise<string> {
  const dir = join(parent, 'acme-shop');
  await mkdir(join(dir, 'node_modules', '@plugboard'), { recursive: true });
  const sdk = JSON.parse(await readFile(fileURLToPath(new URL('../../sdk/package.json', import.meta.url)), 'utf8')) as {
    version: string;
  };
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'acme-shop',
      version: '2.0.0',
      type: 'module',
      dependencies: { '@plugboard/example-connector': '*' },
      plugboard: { connector: './index.js', sdk: `^${sdk.version}` },
    }),
  );
  await symlink(EXAMPLE, join(dir, 'node_modules', '@plugboard', 'example-connector'), 'dir');
  await writeFile(join(dir, 'index.js'), `export { default } from '@plugboard/example-connector/connector';\n`);
  await cp(join(EXAMPLE, 'test', 'fixtures'), join(dir, 'test', 'fixtures'), { recursive: true });
  return dir;
}

describe('plugboard catalogue --out DIR', () => {
  it('generates, prints a summary, and honours SOURCE_DATE_EPOCH from its environment', async () => {
    const cwd = await tempDir();
    const result = await catalogueCli(
      ['--out', 'site', '--package', 'shop=@acme/shop'],
      cwd,
      new Map([['shop', withExport]]),
      { SOURCE_DATE_EPOCH: '0' },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^catalogue: 1 connector, 6 operations, \d+ files in /);
    expect(result.stdout).toContain('generated 1970-01-01T00:00:00.000Z');
    expect(result.stdout).toContain('shop: 6 operations, 4 data types (not every operation is implemented)');
    expect(result.stdout).toContain('implemented: false for shop');
    expect(result.stdout).toContain(`site: ${join(cwd, 'site', 'index.html')}`);
    const index = JSON.parse(await readFile(join(cwd, 'site', 'index.json'), 'utf8')) as {
      generatedAt: string;
      connectors: Array<{ package?: string }>;
    };
    expect(index.generatedAt).toBe('1970-01-01T00:00:00.000Z');
    expect(JSON.stringify(index)).toContain('@acme/shop');
  });

  it('exits 1 with the reason when a connector yields an invalid entry', async () => {
    const broken = { ...shop, summary: undefined as unknown as string, key: 'broken' };
    const result = await catalogueCli(['--out', 'out'], await tempDir(), new Map([['broken', broken]]));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("catalogue entry of connector 'broken' is invalid");
    expect(result.stderr).toContain("field 'summary'");
  });

  it('answers usage errors with exit code 2 and the usage, and --help with 0', async () => {
    const cwd = await tempDir();
    for (const argv of [
      [],
      ['--out'],
      ['--bogus'],
      ['stray'],
      ['diff', 'one'],
      ['--out', 'x', '--package', 'nokey'],
      ['--out', 'x', '--package', 'key='],
    ]) {
      const result = await catalogueCli(argv, cwd);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(JSON.parse(result.stderr)).toMatchObject({ code: 'invalid_input', statusCode: 400 });
    }
    await mkdir(join(cwd, 'empty'));
    const notCatalogue = await catalogueCli(['diff', 'empty', 'empty'], cwd);
    expect(notCatalogue.code).toBe(2);
    expect(notCatalogue.stderr).toContain('not a catalogue folder');
    const help = await catalogueCli(['--help'], cwd);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: plugboard catalogue');
    expect(help.stdout).toContain('diff [options] <old> <new>');
  });
});

describe('plugboard catalogue --out DIR of a connector package', () => {
  it('names the package from its package.json and shows its recorded examples, with run lines that find it', async () => {
    const dir = await acmeShop(await tempDir());
    for (const [cwd, argv] of [
      [dir, ['--out', 'site']],
      [await tempDir(), ['--out', 'site', '--connector', dir]],
    ] as const) {
      const buffers = bufferIo();
      const code = await runCli(['catalogue', ...argv], { ...buffers.io, cwd });
      expect(buffers.stderr()).toBe('');
      expect(code).toBe(0);
      const entry = JSON.parse(await readFile(join(cwd, 'site', 'connectors', 'shop.json'), 'utf8')) as {
        package: string;
      };
      expect(entry.package).toBe('acme-shop');
      // The page's text, its character references read back.
      const site = (await readFile(join(cwd, 'site', 'index.html'), 'utf8')).replace(/&#(\d+);/g, (_, code: string) =>
        String.fromCharCode(Number(code)),
      );
      // orders-create.json: the input it was recorded with, and the order it gave.
      expect(site).toContain(
        `plugboard run shop orders.create --connector acme-shop --base-url '<provider base URL>' --input '{"quantity":2,"sku":"sku_1"}'`,
      );
      expect(site).toContain('"order_id": "ord_4"');
      expect(site).not.toContain('data-example="sampled"');
    }
  });

  it('names each package of a plugin folder', async () => {
    const plugins = await tempDir();
    await mkdir(join(plugins, 'node_modules'));
    await acmeShop(join(plugins, 'node_modules'));
    const cwd = await tempDir();
    const buffers = bufferIo();
    const code = await runCli(['catalogue', '--out', 'site', '--plugins', plugins], { ...buffers.io, cwd });
    expect(code).toBe(0);
    const entry = JSON.parse(await readFile(join(cwd, 'site', 'connectors', 'shop.json'), 'utf8')) as {
      package: string;
    };
    expect(entry.package).toBe('acme-shop');
  });
});

describe('plugboard catalogue diff OLD NEW', () => {
  const AT = '2026-10-01T00:00:00Z';
  const catalogueOf = async (connector: Connector) => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: [connector], outDir, generatedAt: AT });
    return outDir;
  };

  it('exits 0 when nothing breaks, listing the additions', async () => {
    const before = await catalogueOf(shop);
    const after = await catalogueOf(
      shopWith([...shop.actions, defineAction({ ...ordersCreate, key: 'orders.repeat', label: 'Repeat an order' })]),
    );
    const result = await catalogueCli(['diff', before, after], await tempDir());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('catalogue diff: 0 breaking changes, 1 non-breaking change');
    expect(result.stdout).toContain("added operation-added shop orders.repeat: operation 'orders.repeat' was added");
    expect(result.stdout).toContain('no major changeset needed');
  });

  it('prints one line per breaking change and the package that needs a major changeset, and exits 1; --json prints the result', async () => {
    const before = await catalogueOf(shop);
    const after = await catalogueOf(shopWith(shop.actions.filter((action) => action.key !== 'orders.create')));
    const cwd = await tempDir();
    const text = await catalogueCli(['diff', before, after], cwd);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe(
      [
        'catalogue diff: 1 breaking change, 0 non-breaking changes',
        "BREAKING operation-removed shop orders.create: operation 'orders.create' was removed",
        'major changeset needed: @plugboard/connector-shop (1 breaking change)',
        '',
      ].join('\n'),
    );
    const json = await catalogueCli(['diff', before, after, '--json'], cwd);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      majorPackages: ['@plugboard/connector-shop'],
      breaking: [{ kind: 'operation-removed' }],
    });
  });
  it('sees a retyped data-type field and approval and billing switched on for a source, and exits 1', async () => {
    const Retyped = Item.extend({ name: z.number() }).meta({ id: 'ShopItem' });
    const gated = defineAction({
      ...itemsList,
      entity: Retyped,
      approval: 'always',
      billable: true,
    } as unknown as typeof itemsList);
    const before = await catalogueOf(shop);
    const after = await catalogueOf(
      shopWith(shop.actions.map((action) => (action.key === 'items.list' ? gated : action))),
    );
    const result = await catalogueCli(['diff', before, after], await tempDir());
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('catalogue diff: 3 breaking changes');
    expect(result.stdout).toContain('BREAKING approval-turned-on shop items.list');
    expect(result.stdout).toContain('BREAKING billable-turned-on shop items.list');
    expect(result.stdout).toContain('BREAKING type-changed shop ShopItem.name');
  });

  it('refuses with exit 2 a folder whose index.json disagrees with its connector files', async () => {
    const before = await catalogueOf(shop);
    const after = await catalogueOf(shop);
    const path = join(after, 'connectors/shop.json');
    const entry = JSON.parse(await readFile(path, 'utf8')) as { version?: string };
    await writeFile(path, `${JSON.stringify({ ...entry, version: '9.9.9' }, null, 2)}\n`);
    const result = await catalogueCli(['diff', before, after], await tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("connector 'shop' differs between index.json and connectors/shop.json");
  });
  it('takes an installed connector package as OLD (its folder or its name) and names its package', async () => {
    const cliDir = join(dirname(fileURLToPath(import.meta.url)), '..');
    const packageDir = join(cliDir, 'node_modules', '@plugboard', 'connector-descript');
    const same = await catalogueOf(descript);
    const byFolder = await catalogueCli(['diff', packageDir, same], await tempDir());
    expect(byFolder.stderr).toBe('');
    expect(byFolder.code).toBe(0);
    expect(byFolder.stdout).toContain('catalogue diff: 0 breaking changes, 0 non-breaking changes');
    const { action: _find, ...rest } = descript;
    const fewer = await catalogueOf(defineConnector({ ...rest, actions: descript.actions.slice(1) }));
    const byName = await catalogueCli(
      ['diff', '@plugboard/connector-descript', fewer, '--plugins', cliDir],
      await tempDir(),
    );
    expect(byName.code).toBe(1);
    expect(byName.stdout).toContain(`BREAKING operation-removed descript ${descript.actions[0]?.key}`);
    expect(byName.stdout).toContain('major changeset needed: @plugboard/connector-descript (1 breaking change)');
    const missing = await catalogueCli(
      ['diff', '@plugboard/connector-nothing', fewer, '--plugins', cliDir],
      await tempDir(),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('neither a catalogue folder nor an installed connector package');
  });
});
