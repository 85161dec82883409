import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { items, shop, startShopProvider } from '@plugboard/example-connector';
import { answer, type FaultServer, startFaultServer } from '@plugboard/testing';
import { runCli } from '../src/index.js';
import { buildProgram } from '../src/program.js';
import { bufferIo, PACK, TOKEN } from './support.js';

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const VERSION = (JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
const pack = new Map([['shop', shop]]);

let server: FaultServer;
beforeEach(async () => {
  server = await startShopProvider({ items: items(5), token: TOKEN });
});
afterEach(async () => {
  await server.close();
});

/** Every command path of the program, e.g. ['idempotency', 'settle']. */
function commandPaths(): string[][] {
  const program = buildProgram({ io: bufferIo().io, simulators: true, run: async () => undefined });
  const paths: string[][] = [];
  const walk = (command: typeof program, path: string[]) => {
    for (const sub of command.commands) {
      paths.push([...path, sub.name()]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return paths;
}

describe('help and version', () => {
  it('answers --help for every command and subcommand with its usage and examples, and exits 0', async () => {
    const paths = commandPaths();
    expect(paths.length).toBeGreaterThanOrEqual(10);
    for (const path of paths) {
      const { io, stdout } = bufferIo();
      expect(await runCli([...path, '--help'], io), path.join(' ')).toBe(0);
      expect(stdout(), path.join(' ')).toContain(`Usage: plugboard ${path.join(' ')}`);
      // A command of subcommands lists them; every other one shows how it is used.
      if (!['idempotency', 'auth', 'db'].includes(path.join(' ')))
        expect(stdout(), path.join(' ')).toContain('Examples:\n  $ plugboard');
    }
  });

  it('prints its version with --version', async () => {
    const { io, stdout } = bufferIo();
    expect(await runCli(['--version'], io)).toBe(0);
    expect(stdout()).toBe(`${VERSION}\n`);
  });

  it('suggests the closest command and option', async () => {
    const command = bufferIo();
    expect(await runCli(['recrod'], command.io)).toBe(2);
    expect(JSON.parse(command.stderr())).toMatchObject({
      code: 'invalid_input',
      message: "unknown command 'recrod'; did you mean record?",
      hint: 'plugboard --help lists the commands',
    });
    const option = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['run', 'shop', 'items.list', '--bsae-url', server.url], option.io, { pack })).toBe(2);
    expect(JSON.parse(option.stderr())).toMatchObject({
      message: "unknown option '--bsae-url'; did you mean --base-url?",
      hint: 'plugboard run --help shows its options',
    });
    expect(server.requests).toEqual([]);
  });
});

describe('plugboard test and a connection', () => {
  it('--connection-id is refused (exit 2) before anything runs: the suite replays the fixtures on no connection', async () => {
    const dir = await authorPackage(await mkdtemp(join(tmpdir(), 'plugboard-author-')));
    const program = bufferIo();
    expect(await runCli(['test', '--connection-id', 'work'], { ...program.io, cwd: dir })).toBe(2);
    expect(JSON.parse(program.stderr())).toMatchObject({
      code: 'invalid_input',
      message:
        "plugboard: arguments: --connection-id work: plugboard test runs the package's suite, which replays the recorded fixtures with the network closed and uses no connection; to record on connection work, run plugboard record <action> --scenario <name> --connection-id work",
    });
    expect(program.stdout()).toBe('');
    // A name that is no connection name is refused as every command refuses it.
    const bad = bufferIo();
    expect(await runCli(['test', '--connection-id', '../x'], { ...bad.io, cwd: dir })).toBe(2);
    expect(JSON.parse(bad.stderr()).message).toMatch(
      /^plugboard: arguments: --connection-id \.\.\/x: a connection name is/,
    );
  });
});

describe('output for people and for programs', () => {
  const tty = (env: Record<string, string>) => {
    const buffers = bufferIo(env, true);
    return { ...buffers, io: { ...buffers.io, stdout: { ...buffers.io.stdout, isTTY: true } } };
  };

  it('tells a person at a terminal what failed and what to do next; a program gets the platform Error JSON', async () => {
    const argv = [
      'run',
      'shop',
      'orders.create',
      '--environment',
      'production',
      '--input',
      '{"sku":"A1","quantity":1}',
      '--base-url',
      server.url,
    ];
    const env = { PLUGBOARD_CREDENTIAL: TOKEN, PLUGBOARD_ALLOW_NETWORK: '127.0.0.0/8' };
    const person = tty(env);
    expect(await runCli(argv, person.io, { pack })).toBe(3);
    const [message, hint] = person.stderr().trim().split('\n');
    expect(message).toMatch(/^plugboard: .*approval/);
    const digest = /digest (sha256:[0-9a-f]{64})/.exec(hint!)?.[1];
    expect(hint).toMatch(/^hint: someone other than you approves digest sha256:/);
    expect(hint).toContain(`--approval '{"digest":"${digest}"`);
    const program = tty(env);
    expect(await runCli([...argv, '--json'], program.io, { pack })).toBe(3);
    expect(JSON.parse(program.stderr())).toMatchObject({
      error: 'request_failed',
      code: 'approval_required',
      statusCode: 403,
    });
    expect(server.requests).toEqual([]);
  });

  it('names the refused option once at a terminal, not after a second plugboard prefix', async () => {
    const person = tty({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(
      await runCli(['run', 'shop', 'items.list', '--input', '[]', '--base-url', server.url], person.io, { pack }),
    ).toBe(2);
    expect(person.stderr().split('\n')[0]).toBe('plugboard: --input: must be a JSON object, not an array');
    expect(server.requests).toEqual([]);
  });

  it("gives each hint in the CLI's own words, never the library's", async () => {
    const secret = tty({ PLUGBOARD_CREDENTIAL: TOKEN });
    const withKey = ['run', 'shop', 'items.list', '--connection', '{"apiKey":"k-123"}', '--base-url', server.url];
    expect(await runCli(withKey, secret.io, { pack })).toBe(2);
    expect(secret.stderr()).toBe(
      'plugboard: connection default: connection settings must not hold secrets. Refused: settings.apiKey\nhint: a credential goes in PLUGBOARD_CREDENTIAL (or plugboard auth login), never in --connection\n',
    );
    const loopback = tty({ PLUGBOARD_CREDENTIAL: TOKEN });
    const production = ['run', 'shop', 'items.list', '--environment', 'production', '--base-url', server.url];
    expect(await runCli(production, loopback.io, { pack })).toBe(2);
    expect(loopback.stderr()).toBe(
      'plugboard: the host 127.0.0.1 is a loopback address, which production runs may not connect to; nothing was sent\nhint: a local provider or stand-in? sandbox runs reach loopback addresses; in production, PLUGBOARD_ALLOW_NETWORK=127.0.0.0/8 lets them through\n',
    );
    const input = { applicant: { date_of_birth: '1980-01-01' }, cause: 'illness', confinement_days: 5 };
    const nowhere = tty({ PLUGBOARD_CREDENTIAL: TOKEN });
    const noBaseUrl = ['run', 'insurance', 'hospital_cash_plus_quotes.create', '--input', JSON.stringify(input)];
    expect(await runCli(noBaseUrl, nowhere.io, { pack: PACK })).toBe(2);
    expect(nowhere.stderr().split('\n')[1]).toBe(
      "hint: pass --base-url URL: the provider's, or a local stand-in's (plugboard mock)",
    );
    for (const said of [secret.stderr(), loopback.stderr()]) expect(said).not.toMatch(/vault|createTransport/);
    expect(server.requests).toEqual([]);
  });

  it('says info lines as text at a terminal even when stdout is redirected, JSON with --json', async () => {
    const state = await mkdtemp(join(tmpdir(), 'plugboard-info-'));
    const argv = ['run', 'shop', 'orders.create', '--input', '{"sku":"A1","quantity":1}', '--base-url', server.url];
    const redirected = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN, PLUGBOARD_STATE: state }, true);
    expect(await runCli([...argv, '--idempotency-key', 'info-1'], redirected.io, { pack })).toBe(0);
    // Clearing the line a progress bar may hold shows nothing.
    expect(redirected.stderr().replaceAll('\r\x1b[2K', '')).toMatch(
      /^idempotency key info-1 is kept in \S+ \(from PLUGBOARD_STATE; --state DIR keeps it elsewhere\)\n$/,
    );
    expect(JSON.parse(redirected.stdout())).toMatchObject({ order_id: expect.any(String) });
    const json = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN, PLUGBOARD_STATE: state }, true);
    expect(await runCli([...argv, '--idempotency-key', 'info-1', '--json'], json.io, { pack })).toBe(0);
    expect(
      json
        .stderr()
        .replaceAll('\r\x1b[2K', '')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { level: 'info', message: expect.stringMatching(/^idempotency key info-1 is kept in /) },
      { level: 'info', message: 'replayed: the first result under idempotency key info-1; nothing was sent' },
    ]);
  });

  it("never passes a provider's control characters to a terminal", async () => {
    const hostile = await startFaultServer(() =>
      answer({ status: 400, body: { error: 'bad', message: 'no \u001b[2J\u001b]0;owned\u0007such item\rX' } }),
    );
    try {
      const person = tty({ PLUGBOARD_CREDENTIAL: TOKEN });
      expect(await runCli(['run', 'shop', 'items.list', '--base-url', hostile.url], person.io, { pack })).toBe(4);
      expect(person.stderr()).toMatch(/^plugboard: .*no \ufffd\[2J\ufffd\]0;owned\ufffdsuch item\ufffdX/);
      for (const control of ['\u001b', '\u0007', '\r']) expect(person.stderr()).not.toContain(control);
    } finally {
      await hostile.close();
    }
  });

  it('prints the exit codes with --help, 6 for a state a person must look at', async () => {
    const { io, stdout } = bufferIo();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(stdout()).toMatch(
      /\n {2}6 {2}a person must look; nothing was sent: an idempotency key left running or uncertain/,
    );
  });

  it('exits 5 when the provider says the quota is exhausted, and 4 when it refuses otherwise', async () => {
    const quota = await startFaultServer(() =>
      answer({
        status: 402,
        body: { error: 'payment_required', message: 'not enough credits: 5 needed, 0 available' },
      }),
    );
    try {
      const { io, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
      expect(await runCli(['run', 'shop', 'items.list', '--base-url', quota.url], io, { pack })).toBe(5);
      expect(JSON.parse(stderr())).toMatchObject({ code: 'quota_exhausted', statusCode: 402 });
    } finally {
      await quota.close();
    }
    const refused = bufferIo({ PLUGBOARD_CREDENTIAL: 'not-the-token' });
    expect(await runCli(['run', 'shop', 'items.list', '--base-url', server.url], refused.io, { pack })).toBe(4);
  });

  it('says where a resumed read resumed from and how many records were new', async () => {
    const state = await mkdtemp(join(tmpdir(), 'plugboard-resume-'));
    const argv = ['run', 'shop', 'items.list', '--input', '{"limit":2}', '--base-url', server.url, '--state', state];
    const first = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(argv, first.io, { pack })).toBe(0);
    expect(first.stderr()).toBe('');
    const again = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(argv, again.io, { pack })).toBe(0);
    expect(again.stdout()).toBe('');
    expect(JSON.parse(again.stderr())).toMatchObject({
      level: 'info',
      message: expect.stringMatching(/^resumed from the checkpoint in .*\{"updated_after":".+"\}; 0 new records$/),
    });
  });
});

/** The shop's items.list as an author writes it in plain JavaScript, with nothing but the SDK and zod. */
const AUTHOR_CONNECTOR = `import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { z } from 'zod';
const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'ShopItem' });
const itemsList = defineAction({
  key: 'items.list', label: 'List items', direction: 'source', entity: Item,
  input: z.object({ limit: z.number().int().min(1).max(100).default(3) }),
  incremental: { cursorField: 'updated_at', checkpoint: z.object({ updated_after: z.string() }) },
  async *read(ctx, input) {
    let cursor;
    do {
      const page = await ctx.http.get('/items', { query: { limit: input.limit, cursor, updated_after: ctx.checkpoint?.updated_after } });
      cursor = page.next;
      const last = page.data.at(-1);
      yield { records: page.data, ...(last ? { checkpoint: { updated_after: last.updated_at } } : {}) };
    } while (cursor);
  },
});
export default defineConnector({
  key: 'shop', name: 'Shop', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Items of a small shop.', auth: bearerToken(), actions: [itemsList],
});
`;

/**
 * A connector package of an author's own, outside the repository, with @plugboard/sdk and
 * zod linked in as npm would install them.
 */
async function authorPackage(root: string, name = 'plugboard-connector-shop'): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, 'node_modules', '@plugboard'), { recursive: true });
  const sdk = dirname(createRequire(import.meta.url).resolve('@plugboard/sdk/package.json'));
  await symlink(sdk, join(dir, 'node_modules', '@plugboard', 'sdk'), 'dir');
  await symlink(
    dirname(createRequire(join(sdk, 'package.json')).resolve('zod/package.json')),
    join(dir, 'node_modules', 'zod'),
    'dir',
  );
  await writeFile(join(dir, 'index.js'), AUTHOR_CONNECTOR);
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', plugboard: { connector: './index.js', sdk: '>=0.1.0' } }),
  );
  return dir;
}

describe('a connector in the working folder or named by path', () => {
  it('runs and records the connector package of the working folder, its fixtures into its own test/fixtures', async () => {
    const dir = await authorPackage(await mkdtemp(join(tmpdir(), 'plugboard-author-')));
    const run = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(
      await runCli(['run', 'items.list', '--input', '{"limit":5}', '--base-url', server.url], { ...run.io, cwd: dir }),
    ).toBe(0);
    expect(run.stdout().trim().split('\n')).toHaveLength(5);
    const record = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const argv = [
      'record',
      'items.list',
      '--input',
      '{"limit":2}',
      '--scenario',
      'items-first',
      '--base-url',
      server.url,
    ];
    expect(await runCli(argv, { ...record.io, cwd: join(dir, 'node_modules') })).toBe(0);
    expect(await readdir(join(dir, 'test', 'fixtures'))).toEqual(['items-first.json']);
    // The same by path, from elsewhere, with the key checked.
    const byPath = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(
      await runCli(['run', 'shop', 'items.list', '--connector', dir, '--base-url', server.url], {
        ...byPath.io,
        cwd: tmpdir(),
      }),
    ).toBe(0);
    const wrongKey = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(
      await runCli(['run', 'acme', 'items.list', '--connector', dir, '--base-url', server.url], {
        ...wrongKey.io,
        cwd: tmpdir(),
      }),
    ).toBe(2);
    expect(JSON.parse(wrongKey.stderr()).message).toContain("the connector found is 'shop', not 'acme'");
  });

  it('records an incremental source from a given checkpoint', async () => {
    const dir = await authorPackage(await mkdtemp(join(tmpdir(), 'plugboard-author-')));
    const record = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const checkpoint = JSON.stringify({ updated_after: items(5)[2]!.updated_at });
    const argv = [
      'record',
      'items.list',
      '--scenario',
      'items-since',
      '--checkpoint',
      checkpoint,
      '--base-url',
      server.url,
    ];
    expect(await runCli(argv, { ...record.io, cwd: dir })).toBe(0);
    const fixture = JSON.parse(await readFile(join(dir, 'test', 'fixtures', 'items-since.json'), 'utf8')) as {
      scenario: { checkpoint: unknown };
    };
    expect(fixture.scenario.checkpoint).toEqual(JSON.parse(checkpoint));
  });

  it('never records into an installed copy under node_modules', async () => {
    const root = await mkdtemp(join(tmpdir(), 'plugboard-installed-'));
    const dir = await authorPackage(join(root, 'node_modules'));
    const { io, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    const argv = ['record', 'items.list', '--scenario', 'x', '--connector', dir, '--base-url', server.url];
    expect(await runCli(argv, { ...io, cwd: root })).toBe(2);
    expect(JSON.parse(stderr()).message).toContain('is an installed copy');
    expect(server.requests).toEqual([]);
  });
});

/** The files a process loaded, by URL, printed by a module hook when it exits. */
function loadedBy(args: string[], cwd: string, env: Record<string, string> = {}) {
  const hook = `import { registerHooks } from 'node:module'; const seen = []; registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } }); process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(seen) + '\\n'));`;
  return new Promise<{ code: number | null; loaded: string[] }>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, BIN, ...args],
      { cwd, env: { ...process.env, ...env } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) =>
      resolve({ code, loaded: JSON.parse(/LOADED (.*)/.exec(stderr)?.[1] ?? '[]') as string[] }),
    );
  });
}

describe('what a command loads', () => {
  const heavy = /@plugboard\/(catalogue|testing)|\/packages\/(catalogue|testing)\/|\/(vitest|chai|prettier|ajv)\//;

  it('--help and run load neither the catalogue generator, the testing kit nor vitest', async () => {
    const dir = await authorPackage(await mkdtemp(join(tmpdir(), 'plugboard-author-')));
    const help = await loadedBy(['--help'], dir);
    expect(help.code).toBe(0);
    expect(help.loaded.filter((url) => heavy.test(url))).toEqual([]);
    const run = await loadedBy(['run', 'items.list', '--base-url', server.url], dir, { PLUGBOARD_CREDENTIAL: TOKEN });
    expect(run.code).toBe(0);
    expect(run.loaded.some((url) => url.includes('plugboard-connector-shop/index.js'))).toBe(true);
    expect(run.loaded.filter((url) => heavy.test(url))).toEqual([]);
  });
});
