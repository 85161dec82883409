import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type BackgroundStep, GuideShell, guideSteps } from './support/guide.js';
import {
  assertBuilt,
  cleanEnv,
  packInstalled,
  packWorkspace,
  publishTarballs,
  ROOT,
  thirdPartyClosure,
} from './support/packages.js';
import { type LocalRegistry, startRegistry } from './support/registry.js';

/**
 * The authoring guide, followed as a stranger would: every `sh` block of docs/authoring.md,
 * as written and in order, in an empty temporary folder outside the repository. npm sees only
 * a local registry holding Plugboard's packages as they would be published and the third-party
 * packages they and an author's tools (typescript, vitest) need, so `npx @plugboard/cli`,
 * `npm install` and `npm publish` work as they would for the reader. The guide cannot drift:
 * a step that fails fails this test, with its output.
 */

const PACKAGES = ['packages/sdk', 'packages/testing', 'packages/catalogue', 'packages/runtime', 'packages/cli'];
/** What a scaffolded connector builds and tests with, besides Plugboard's own packages. */
const AUTHOR_TOOLS = ['typescript', 'vitest', '@types/node'];

let tmp: string;
let registry: LocalRegistry;
let npmConfig: { npmrc: string; globalNpmrc: string; cache: string };
const started: BackgroundStep[] = [];

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-guide-')));
  await assertBuilt(PACKAGES);
  registry = await startRegistry(join(tmp, 'registry'));
  npmConfig = { npmrc: registry.npmrc, globalNpmrc: registry.globalNpmrc, cache: join(tmp, 'npm-cache') };
  const tarballs = join(tmp, 'tarballs');
  await mkdir(tarballs);
  const packed: string[] = [];
  for (const folder of PACKAGES) packed.push(await packWorkspace(folder, tarballs));
  const thirdParty = await thirdPartyClosure(PACKAGES, AUTHOR_TOOLS);
  packed.push(
    ...(await packInstalled(
      thirdParty.map(({ dir }) => dir),
      tarballs,
      registry.npmrc,
      registry.globalNpmrc,
    )),
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

describe('docs/authoring.md, followed step by step outside the repository', () => {
  test(
    'every sh block runs as written: new, install, test, a local stand-in, record, run, catalogue, publish',
    async () => {
      const steps = guideSteps(await readFile(join(ROOT, 'docs', 'authoring.md'), 'utf8'));
      expect(steps.length).toBeGreaterThan(0);
      const home = join(tmp, 'home');
      const work = join(tmp, 'work');
      await mkdir(home);
      await mkdir(work);
      await mkdir(join(tmp, 'shell'));
      const env = cleanEnv({
        HOME: home,
        // The reader's Node is the one running this test (Node 22.20 or newer), and npm finds it.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
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
      for (const step of steps) {
        if (step.background) {
          const server = shell.begin(step.script);
          started.push(server);
          await server.waitFor(/http:\/\/127\.0\.0\.1:\d+/);
          continue;
        }
        const result = await shell.run(step.script, 5 * 60_000);
        const registryLog =
          result.code === 0
            ? ''
            : `\n--- the registry's log (last 40 lines) ---\n${registry.log.join('').split('\n').slice(-40).join('\n')}`;
        expect(
          result.code,
          `docs/authoring.md line ${step.line}:\n${step.script}\n---\n${result.output}${result.code === 0 ? '' : await npmLogTail()}${registryLog}`,
        ).toBe(0);
      }

      // What the reader has at the end: the package on the registry, its own fixtures (the second
      // incremental scenario read only the items the stand-in added after the first), its catalogue entry.
      const acme = join(work, 'acme');
      const packument = (await (await fetch(`${registry.url}plugboard-connector-acme`)).json()) as {
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
        operations: Array<{ key: string }>;
      };
      expect({ key: entry.key, operations: entry.operations.map((operation) => operation.key).sort() }).toEqual({
        key: 'acme',
        operations: ['items.create', 'items.list'],
      });
      // Two npm installs, two builds and two test runs on a small machine.
    },
    10 * 60_000,
  );
});
