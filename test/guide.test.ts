import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type BackgroundStep, GuideShell, type GuideStep, guideSteps } from './support/guide.js';
import { assertBuilt, cleanEnv, packInstalled, publishTarballs, ROOT, thirdPartyClosure } from './support/packages.js';
import { type LocalRegistry, startRegistry } from './support/registry.js';

/**
 * The authoring guide, followed as a stranger would: every `sh` block of docs/authoring.md,
 * as written and in order, in an empty temporary folder outside the repository that also holds
 * the clone (a link to this repository, named `plugboard`): `./pbw local-registry` serves the
 * kit, as the guide says, and the scaffolded package installs, builds, records, passes its
 * suite, writes its catalogue entry, is published to the clone's registry (never to npm's, whose
 * token the reader's npm holds), installed from there into a plugin folder and runs from it.
 *
 * npm's own registry is a stand-in for the public one: a second local registry holding only the
 * third-party packages the kit and an author's tools (typescript, vitest) need, never
 * `@plugboard/*`, so that the guide's scope lines are needed and checked. Nothing reaches
 * another address: every other host meets a closed proxy. The one change to the guide's text:
 * its ports. The servers it starts in a second terminal, the local registry (4873) and
 * `plugboard mock` (4010, and 4011 for the OAuth2 provider), listen on ports the system chose
 * (`--port 0`), and every later step names the port each printed instead of the guide's, so that
 * another program holding one of them changes nothing. What the reader does besides typing is
 * done as the guide says: Box's document is saved beside the first package (the corpus's
 * unedited subset of it), and the sign-in URL `auth login` prints is opened, as a browser would.
 * The guide cannot drift: a step that fails fails this test, with its output.
 */

/**
 * The servers the guide starts, the port the guide gives each (the local registry's is its
 * default, a stand-in's its `--port`), and the same command on a port the system chooses.
 */
const SERVERS = [
  {
    command: './pbw local-registry',
    portOf: () => '4873',
    anyPort: (script: string) => script.replaceAll('./pbw local-registry', './pbw local-registry --port 0'),
    // Its progress lines name the address before the kit is published: ready once it says it serves.
    ready: /served at http:\/\/127\.0\.0\.1:(\d+)\//,
  },
  {
    command: 'plugboard mock',
    portOf: (script: string) => /--port (\d+)/.exec(script)?.[1],
    anyPort: (script: string) => script.replace(/--port \d+/, '--port 0'),
    ready: /http:\/\/127\.0\.0\.1:(\d+)/,
  },
];
/** The URL a sign-in step prints for the reader to open in a browser, once whole (the quote or space after it has come). */
const SIGN_IN_URL = /http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?[^"\s]+(?=["\s])/g;
const PACKAGES = [
  'packages/sdk',
  'packages/testing',
  'packages/catalogue',
  'packages/runtime',
  'packages/worker',
  'packages/triggers',
  'packages/mcp',
  'packages/cli',
];
/** A provider's own OpenAPI document that signs in with OAuth2, trimmed to a few operations by the CLI itself. */
const BOX_DOCUMENT = join(ROOT, 'packages', 'cli', 'test', 'documents', 'box-openapi.json');
/** What a scaffolded connector builds and tests with, besides Plugboard's own packages. */
const AUTHOR_TOOLS = ['typescript', 'vitest', '@types/node'];

let tmp: string;
let registry: LocalRegistry;
let npmConfig: { npmrc: string; globalNpmrc: string; cache: string };
let standInFailure: string | undefined;
const started: BackgroundStep[] = [];

// `./pbw` installs the workspace when the lockfile changed since its last install; a test never
// installs: it needs a wrapper that ran once (`./pbw build`) on this lockfile.
// The stamp must be of this lockfile: a stale one makes the guide's `./pbw` install again, with
// the test's closed network, and pnpm then empties the workspace's node_modules.
const stamp = join(ROOT, 'node_modules', '.pbw-lock');
const wrapperReady =
  existsSync(stamp) &&
  readFileSync(stamp, 'utf8').trim() ===
    execFileSync('cksum', [join(ROOT, 'pnpm-lock.yaml')], { encoding: 'utf8' }).split(' ')[0];
if (!wrapperReady)
  console.warn('test/guide.test.ts skipped: run ./pbw build once on this lockfile, so that ./pbw installs nothing');

beforeAll(async () => {
  if (!wrapperReady) return;
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-guide-')));
  await assertBuilt(PACKAGES);
  try {
    registry = await startRegistry(join(tmp, 'registry'));
  } catch (error) {
    // Not the guide's fault: the test's own stand-in for npm's registry did not start.
    standInFailure = `npm's stand-in registry did not start: ${(error as Error).message}`;
    return;
  }
  npmConfig = { npmrc: registry.npmrc, globalNpmrc: registry.globalNpmrc, cache: join(tmp, 'npm-cache') };
  const tarballs = join(tmp, 'tarballs');
  await mkdir(tarballs);
  const thirdParty = await thirdPartyClosure(PACKAGES, AUTHOR_TOOLS);
  const packed = await packInstalled(
    thirdParty.map(({ dir }) => dir),
    tarballs,
    registry.npmrc,
    registry.globalNpmrc,
  );
  await publishTarballs(registry, packed);
});

afterAll(async () => {
  for (const step of started) await step.stop();
  await registry?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The end of npm's newest debug log, where a failed install says which request failed. */
async function npmLogTail(): Promise<string> {
  const logs = join(npmConfig.cache, '_logs');
  const newest = (await readdir(logs).catch(() => [] as string[]))
    .filter((name) => name.endsWith('-debug-0.log'))
    .sort()
    .at(-1);
  if (!newest) return '';
  const lines = (await readFile(join(logs, newest), 'utf8')).split('\n');
  return `\n--- ${newest} (last 40 lines) ---\n${lines.slice(-40).join('\n')}`;
}

/**
 * The reader's browser: opens each sign-in URL a step prints, once, and follows the stand-in's
 * redirect back to the CLI's loopback listener, as a browser does.
 */
function readersBrowser() {
  const opened = new Set<string>();
  const visits: Array<Promise<string | undefined>> = [];
  return {
    watch(output: string) {
      for (const [url] of output.matchAll(SIGN_IN_URL)) {
        if (opened.has(url)) continue;
        opened.add(url);
        visits.push(
          fetch(url).then(
            async (answer) => (answer.ok ? undefined : `${answer.status} ${await answer.text()}`),
            (error: Error) => error.message,
          ),
        );
      }
    },
    /** What went wrong opening the URLs, once every visit ended. */
    async failures() {
      return (await Promise.all(visits)).filter((failure) => failure !== undefined);
    },
  };
}

/**
 * Runs the steps in order, each as written but for the ports: a server the guide starts
 * listens where the system chose, and later steps name that port; a URL a step prints to sign
 * in is opened as the reader would. Gives each step's output, where each guide port's server
 * listens, its server and how much it had printed when each step began; prints how long each
 * step took, for the docs' timings.
 */
async function follow(steps: readonly GuideStep[], shell: GuideShell) {
  const timings: string[] = [];
  const outputs = new Map<GuideStep, string>();
  const listening = new Map<string, string>();
  const servers = new Map<string, BackgroundStep>();
  const printedBefore = new Map<GuideStep, Map<string, number>>();
  const guidePorts = new RegExp(
    `\\b(${steps
      .filter((step) => step.background)
      .map((step) => SERVERS.find((server) => step.script.includes(server.command))?.portOf(step.script))
      .join('|')})\\b`,
  );
  const browser = readersBrowser();
  for (const step of steps) {
    const begun = performance.now();
    printedBefore.set(step, new Map([...servers].map(([port, server]) => [port, server.output().length])));
    const server = step.background ? SERVERS.find((candidate) => step.script.includes(candidate.command)) : undefined;
    let script = server ? server.anyPort(step.script) : step.script;
    for (const [guide, port] of listening) script = script.replaceAll(`:${guide}`, `:${port}`);
    expect(script, `docs/authoring.md line ${step.line} would run on a fixed port`).not.toMatch(guidePorts);
    if (step.background) {
      const guidePort = server?.portOf(step.script);
      expect(guidePort, `docs/authoring.md line ${step.line}: a server the test does not know`).toBeDefined();
      const background = shell.begin(script);
      started.push(background);
      await background.waitFor(server!.ready);
      listening.set(guidePort!, server!.ready.exec(background.output())![1]!);
      servers.set(guidePort!, background);
      timings.push(`${step.line}: ${Math.round(performance.now() - begun)} ms to serve`);
      continue;
    }
    const result = await shell.run(script, 5 * 60_000, (output) => browser.watch(output));
    timings.push(`${step.line}: ${Math.round(performance.now() - begun)} ms`);
    outputs.set(step, result.output);
    const registryLog =
      result.code === 0
        ? ''
        : `\n--- the registry's log (last 40 lines) ---\n${registry.log.join('').split('\n').slice(-40).join('\n')}\n--- the browser ---\n${(await browser.failures()).join('\n')}`;
    expect(
      result.code,
      `docs/authoring.md line ${step.line}:\n${script}\n---\n${result.output}${result.code === 0 ? '' : await npmLogTail()}${registryLog}`,
    ).toBe(0);
  }
  expect(await browser.failures(), 'the sign-in URLs the guide printed, opened').toEqual([]);
  const ports = [...listening].map(([guide, port]) => `${guide} -> ${port}`).join(', ');
  console.log(`docs/authoring.md, step by step (by the line of each block; ports ${ports}):\n${timings.join('\n')}`);
  return { outputs, listening, servers, printedBefore };
}

describe.skipIf(!wrapperReady)('docs/authoring.md, followed step by step outside the repository', () => {
  test(
    "every sh block runs as written: the kit from a clone, new, install, test, a local stand-in, record, run, catalogue, publish, a plugin folder; then the same from an OAuth2 provider's own document, signed in at the stand-in",
    async (context) => {
      if (standInFailure) context.skip(standInFailure);
      const steps = guideSteps(await readFile(join(ROOT, 'docs', 'authoring.md'), 'utf8'));
      // The guide names its servers' default ports: the reader's commands stay as they are.
      for (const [server, port] of SERVERS.map((server, index) => [server, ['4873', '4010'][index]] as const)) {
        expect(steps.some((step) => step.background && step.script.includes(server.command))).toBe(true);
        expect(steps.some((step) => step.script.includes(`127.0.0.1:${port}`))).toBe(true);
      }
      const home = join(tmp, 'home');
      const work = join(tmp, 'work');
      await mkdir(home);
      await mkdir(work);
      // The folder that holds the clone, as the guide's reader has it.
      await symlink(ROOT, join(work, 'plugboard'));
      // Box's document, which the guide says to save there: the corpus's unedited subset of it.
      await copyFile(BOX_DOCUMENT, join(work, 'box-openapi.json'));
      await mkdir(join(tmp, 'shell'));
      await mkdir(join(tmp, 'tmp'));
      const env = cleanEnv({
        HOME: home,
        // The reader's Node is the one running this test (Node 22.20 or newer), and npm finds it.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        // What the steps leave in a temporary folder (the clone's registry, stopped with SIGKILL) goes with the test's.
        TMPDIR: join(tmp, 'tmp'),
        npm_config_userconfig: npmConfig.npmrc,
        npm_config_globalconfig: npmConfig.globalNpmrc,
        npm_config_cache: npmConfig.cache,
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        CI: 'true',
      });
      delete env.PLUGBOARD_CREDENTIAL;
      const shell = new GuideShell(join(tmp, 'shell'), env, work);
      const { outputs, listening, servers, printedBefore } = await follow(steps, shell);
      const registryPort = listening.get('4873');

      // The kit came from the clone's registry, everything else from npm's own.
      const lock = JSON.parse(await readFile(join(work, 'acme', 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { resolved?: string }>;
      };
      const resolved = Object.entries(lock.packages).filter(([path]) => path.includes('node_modules/'));
      expect(resolved.length).toBeGreaterThan(0);
      for (const [path, { resolved: url }] of resolved) {
        const from = path.includes('node_modules/@plugboard/') ? `http://127.0.0.1:${registryPort}/` : registry.url;
        expect(url, path).toMatch(new RegExp(`^${from.replace(/[.]/g, '\\.')}`));
      }
      // The publish named the clone's registry, and its dry run said so first.
      const clone = `http://127.0.0.1:${registryPort}/`;
      const dryRun = [...outputs].find(([step]) => step.script.includes('npm publish --dry-run'));
      expect(dryRun, 'the guide checks the publish with a dry run').toBeDefined();
      expect(dryRun![1]).toContain(`Publishing to ${clone} with tag latest and default access (dry-run)`);
      // The plugin folder got the package from the clone's registry.
      const pluginsLock = JSON.parse(await readFile(join(work, 'plugins', 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { resolved?: string }>;
      };
      expect(pluginsLock.packages['node_modules/plugboard-connector-acme']?.resolved).toBe(
        `${clone}plugboard-connector-acme/-/plugboard-connector-acme-0.2.0.tgz`,
      );
      // The connector ran from the plugin folder, isolated: records as JSON lines.
      const pluginRun = [...outputs].find(([step]) => step.script.includes('run acme items.list --plugins'));
      expect(pluginRun, 'the guide runs the connector from a plugin folder').toBeDefined();
      expect(pluginRun![1]).toMatch(/^\{"id":/m);

      // What the reader has at the end: the package on the clone's registry and never on npm's
      // (whose token the reader's npm holds), its own fixtures (the second incremental scenario
      // read only the items the stand-in added after the first), its catalogue entry.
      const acme = join(work, 'acme');
      expect((await fetch(`${registry.url}plugboard-connector-acme`)).status).toBe(404);
      const packument = (await (await fetch(`${clone}plugboard-connector-acme`)).json()) as {
        versions?: Record<string, { plugboard?: unknown }>;
      };
      expect(Object.keys(packument.versions ?? {})).toEqual(['0.2.0']);
      expect(packument.versions?.['0.2.0']?.plugboard).toEqual({
        connector: './dist/index.js',
        sdk: expect.stringMatching(/^\^/),
      });
      const fixture = async (name: string) =>
        JSON.parse(await readFile(join(acme, 'test', 'fixtures', `${name}.json`), 'utf8')) as {
          outcome: { records?: Array<{ id: string; updated_at: string }> };
        };
      const full = (await fixture('items-full')).outcome.records ?? [];
      const since = (await fixture('items-since')).outcome.records ?? [];
      expect(full).toHaveLength(250);
      expect(since).toHaveLength(3);
      expect(since.every((item) => item.updated_at > full.at(-1)!.updated_at)).toBe(true);
      const entry = JSON.parse(await readFile(join(acme, 'catalogue', 'connectors', 'acme.json'), 'utf8')) as {
        key: string;
        package: string;
        operations: Array<{ key: string }>;
      };
      expect({
        key: entry.key,
        package: entry.package,
        operations: entry.operations.map((operation) => operation.key).sort(),
      }).toEqual({
        key: 'acme',
        // The package's own name, from its package.json.
        package: 'plugboard-connector-acme',
        operations: ['items.create', 'items.list'],
      });

      // Box, from its own document and unedited: the scaffold signs in with OAuth2, the paged
      // incremental source read every page and then only what came after, and the stand-in
      // counted one sign-in and the refreshes of tokens that expired (while recording and for
      // the isolated plugin's run), each with the refresh token the one before left, none refused.
      const box = join(work, 'box');
      expect(await readFile(join(box, 'src', 'index.ts'), 'utf8')).toMatch(
        /oauth2AuthorizationCode\(\{\s*authorizeUrl: 'https:\/\/account\.box\.com\/api\/oauth2\/authorize'/,
      );
      const boxFixture = async (name: string) =>
        JSON.parse(await readFile(join(box, 'test', 'fixtures', `${name}.json`), 'utf8')) as {
          calls: unknown[];
          outcome: { records?: Array<{ event_id: string; created_at: string }> };
        };
      const events = await boxFixture('events.get');
      const newer = (await boxFixture('events.get-since')).outcome.records ?? [];
      expect(events.outcome.records).toHaveLength(1200);
      expect(events.calls.length).toBeGreaterThanOrEqual(3);
      expect(newer).toHaveLength(3);
      const latest = events.outcome.records!.map((event) => Date.parse(event.created_at)).sort((a, b) => b - a)[0]!;
      expect(newer.every((event) => Date.parse(event.created_at) > latest)).toBe(true);
      const boxStandIn = servers.get('4011')!;
      await boxStandIn.interrupt();
      const grantsBetween = (from: GuideStep, to?: GuideStep) =>
        [
          ...boxStandIn
            .output()
            .slice(printedBefore.get(from)!.get('4011'), to && printedBefore.get(to)!.get('4011'))
            .matchAll(/^POST \/oauth\/token (\d+) (.+)$/gm),
        ].map(([, status, grant]) => `${status} ${grant}`);
      const stepOf = (text: string) => steps.find((step) => step.script.includes(text))!;
      const recording = stepOf('record events.get');
      const everyGrant = grantsBetween(recording);
      expect(everyGrant.filter((grant) => !grant.startsWith('200 '))).toEqual([]);
      expect(everyGrant.filter((grant) => grant === '200 authorization_code')).toHaveLength(1);
      expect(grantsBetween(recording, stepOf('run events.get'))).toContain('200 refresh_token');
      expect(grantsBetween(stepOf('run box events.get --plugins'))).toContain('200 refresh_token');
      const boxRun = [...outputs].find(([step]) => step.script.includes('run box events.get --plugins'));
      expect(boxRun![1]).toMatch(/^\{.*"event_id":/m);

      // Three npm installs, two builds and two test runs on a small machine.
    },
    15 * 60_000,
  );
});
