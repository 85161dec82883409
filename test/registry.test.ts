import { ApprovalRequiredError, ConnectorError } from '@plugboard/sdk';
import { createExecutor, type ExecuteRequest } from '@plugboard/sdk/host';
import { type IsolatedPlugins, loadPlugins, pluginsReport, startPlugins } from '@plugboard/runtime';
import { startDescriptSimulator } from '@plugboard/simulator-descript';
import { startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  assertBuilt,
  cleanEnv,
  npm,
  packInstalled,
  packWorkspace,
  publishTarballs,
  readPackage,
  ROOT,
  thirdPartyClosure,
  type WorkspacePackage,
  workspacePackage,
} from './support/packages.js';
import { type LocalRegistry, startRegistry } from './support/registry.js';

/**
 * A real registry, end to end: the SDK, the runtime and the connector packages, as built
 * (the test fails when one is not), packed as they would be published, published to a local Verdaccio with no
 * uplinks, installed with npm into a fresh host folder as a user would, loaded with the
 * runtime and run against the simulators. npm sees only the local registry (its own config
 * files, no inherited settings, a fresh cache), and the lockfile proves where every package
 * came from. The media-editing connector joins as soon as its package exists.
 */

const run = promisify(execFile);
const HAS_DESCRIPT = existsSync(join(ROOT, 'connectors', 'descript', 'package.json'));
const CONNECTORS = ['connectors/insurance', ...(HAS_DESCRIPT ? ['connectors/descript'] : [])];
const WORKSPACE = ['packages/sdk', 'packages/runtime', ...CONNECTORS];
const SIMULATORS = ['tools/simulators/insurance', ...(HAS_DESCRIPT ? ['tools/simulators/descript'] : [])];

let tmp: string;
let registry: LocalRegistry;
let host: string;
let published: Array<{ name: string; version: string }> = [];
let workspace: WorkspacePackage[];
let plugins: IsolatedPlugins;

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-e2e-')));
  await assertBuilt([...WORKSPACE, ...SIMULATORS]);
  workspace = await Promise.all(WORKSPACE.map(workspacePackage));
  registry = await startRegistry(join(tmp, 'registry'));
  const tarballs = join(tmp, 'tarballs');
  await mkdir(tarballs);
  const npmConfig = { npmrc: registry.npmrc, globalNpmrc: registry.globalNpmrc, cache: join(tmp, 'npm-cache') };

  const packed: string[] = [];
  for (const folder of WORKSPACE) packed.push(await packWorkspace(folder, tarballs));
  const thirdParty = await thirdPartyClosure(WORKSPACE);
  packed.push(
    ...(await packInstalled(
      thirdParty.map(({ dir }) => dir),
      tarballs,
      registry.npmrc,
      registry.globalNpmrc,
    )),
  );
  await publishTarballs(registry, packed);
  published = [
    ...workspace.map(({ name, version }) => ({ name, version })),
    ...thirdParty.map(({ name, version }) => ({ name, version })),
  ];

  host = join(tmp, 'host');
  await mkdir(host);
  await writeFile(
    join(host, 'package.json'),
    `${JSON.stringify({ name: 'plugboard-e2e-host', version: '0.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const names = workspace.filter((pkg) => pkg.folder.startsWith('connectors/')).map((pkg) => pkg.name);
  await npm(
    [
      'install',
      ...names,
      '@plugboard/sdk',
      '@plugboard/runtime',
      '--registry',
      registry.url,
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
    ],
    { cwd: host, ...npmConfig },
  );

  // Each connector runs in a process of its own. Production runs go to the simulators on 127.0.0.1: the host lets loopback through.
  plugins = await startPlugins(host, { allow: ['127.0.0.0/8'] });
});

afterAll(async () => {
  await plugins?.close();
  await registry?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('publish and install', () => {
  test('every package in the host folder came from the local registry, nowhere else', async () => {
    const lock = JSON.parse(await readFile(join(host, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; version?: string; link?: boolean }>;
    };
    const installed = Object.entries(lock.packages).filter(([path]) => path !== '');
    expect(installed.length).toBeGreaterThan(0);
    for (const [path, entry] of installed) {
      expect(entry.resolved, path).toMatch(new RegExp(`^${registry.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    }
    // Exactly what was published, no more: with no uplinks, anything else would have failed.
    const names = new Set(installed.map(([path]) => path.replace(/^.*node_modules\//, '')));
    expect([...names].sort()).toEqual([...new Set(published.map((pkg) => pkg.name))].sort());
    const storage = await readdir(join(tmp, 'registry', 'storage'), { recursive: true });
    expect(storage.filter((file) => file.endsWith('.tgz')).length).toBe(published.length);
  });

  test('the workspace: ranges were rewritten to versions when packing', async () => {
    const connector = await readPackage(join(host, 'node_modules', '@plugboard', 'connector-insurance'));
    const sdk = workspace.find((pkg) => pkg.name === '@plugboard/sdk')!;
    expect(connector.peerDependencies?.['@plugboard/sdk']).toBe(`^${sdk.version}`);
    const runtime = await readPackage(join(host, 'node_modules', '@plugboard', 'runtime'));
    expect(runtime.dependencies?.['@plugboard/sdk']).toBe(`^${sdk.version}`);
  });
});

describe('loading', () => {
  test('the runtime starts every connector installed in the host folder, each in a process of its own, and a trusting host can import them', async () => {
    expect(plugins.failed).toEqual([]);
    const expected = workspace
      .filter((pkg) => pkg.folder.startsWith('connectors/'))
      .map((pkg) => ({ key: pkg.folder.replace('connectors/', ''), package: pkg.name, version: pkg.version }))
      .sort((a, b) => (a.package < b.package ? -1 : 1));
    expect(plugins.loaded.map(({ key, package: name, version }) => ({ key, package: name, version }))).toEqual(
      expected,
    );
    for (const plugin of plugins.loaded) expect(plugin.dir.startsWith(join(host, 'node_modules'))).toBe(true);
    const imported = await loadPlugins(host);
    expect(
      imported.loaded.map(({ key, package: name, version, dir }) => ({ key, package: name, version, dir })),
    ).toEqual(plugins.loaded.map(({ key, package: name, version, dir }) => ({ key, package: name, version, dir })));
    for (const plugin of imported.loaded) expect(plugin.sharesHostSdk).toBe(true);
  });

  test('pluginsReport, what plugboard plugins --dir prints, gives the same list', async () => {
    expect(await pluginsReport(host)).toEqual({
      loaded: plugins.loaded.map(({ key, package: name, version }) => ({ key, package: name, version })),
      failed: [],
    });
  });

  test('the runtime installed from the registry loads them too, in a process of its own', async () => {
    const script =
      "import { pluginsReport } from '@plugboard/runtime'; process.stdout.write(JSON.stringify(await pluginsReport('.')));";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: host,
      env: cleanEnv(),
    });
    expect(JSON.parse(stdout)).toEqual({
      loaded: plugins.loaded.map(({ key, package: name, version }) => ({ key, package: name, version })),
      failed: [],
    });
  });
});

describe('insurance, installed from the registry, against its simulator', () => {
  test('quotes, a paged list, an approved policy with a replayed key, and a classified provider error', async () => {
    const sim = await startInsuranceSimulator({ port: 0 });
    try {
      const executor = createExecutor({
        plugins,
        resolveConnection: (id) => ({ id, baseUrl: sim.url }),
        resolveCredential: () => sim.apiKey,
        log: () => undefined,
      });
      const base = { connectorKey: 'insurance', connectionId: 'conn_insurance' };
      const quote = await executor.execute({
        ...base,
        action: 'hospital_cash_basic_quotes.create',
        input: { applicant: { date_of_birth: '1988-04-12' }, cause: 'illness', confinement_days: 7 },
      });
      expect(quote).toMatchObject({
        direction: 'destination',
        replayed: false,
        result: { premium: { currency: expect.any(String) } },
      });

      for (let index = 0; index < 5; index += 1) {
        await executor.execute({
          ...base,
          action: 'motor_quotes.create',
          input: { vehicle: { value: 10_000 + index }, driver_age: 30 },
        });
      }
      const pages: number[] = [];
      const listed = await executor.execute({
        ...base,
        action: 'motor_quotes.list',
        input: { page_size: 2 },
        onPage: (page) => void pages.push(page.records.length),
      });
      expect(pages).toEqual([2, 2, 1]);
      expect(listed).toMatchObject({ direction: 'source', records: 5 });

      // A policy binds real cover: in production it needs an approval by someone else, for this digest.
      const policy: ExecuteRequest = {
        ...base,
        action: 'motor_policies.create',
        environment: 'production',
        input: { quote_id: 'q_1', holder: 'A. Person' },
        idempotencyKey: 'policy-1',
      };
      const before = sim.requests.length;
      const refused = await executor.execute(policy).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApprovalRequiredError);
      const { digest } = refused as ApprovalRequiredError;
      const selfApproved = await executor
        .execute({
          ...policy,
          approval: { digest, requestedBy: 'ana', decidedBy: 'ana', decision: 'approved', expiresAt: null },
        })
        .catch((error: unknown) => error);
      expect(selfApproved).toMatchObject({ reason: 'self_approval' });
      expect(sim.requests.length).toBe(before);
      const approval = {
        digest,
        requestedBy: 'ana',
        decidedBy: 'ben',
        decision: 'approved' as const,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      };
      const first = await executor.execute({ ...policy, approval });
      const again = await executor.execute({ ...policy, approval });
      expect(first.replayed).toBe(false);
      expect(again).toEqual({ ...first, replayed: true });
      expect(sim.requests.length).toBe(before + 1);

      // The connector's own error classes are the host SDK's: the pipeline keeps their codes.
      sim.failNext({ kind: 'coverage_not_supported', status: 422 });
      const failure = await executor
        .execute({
          ...base,
          action: 'hospital_cash_plus_quotes.create',
          input: { applicant: { date_of_birth: '1950-01-01' }, cause: 'illness', confinement_days: 5 },
        })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConnectorError);
      expect(failure).toMatchObject({
        code: 'coverage_not_supported',
        status: 422,
        requestId: expect.stringMatching(/^req_/),
      });
    } finally {
      await sim.close();
    }
  });
});

describe.runIf(HAS_DESCRIPT)('descript, installed from the registry, against its simulator', () => {
  test('the token check, an incremental list resumed from its checkpoint, and an import that needs approval in production', async () => {
    const sim = await startDescriptSimulator({ seed: 7, size: 60, jobDurationMs: 1_000 });
    try {
      const executor = createExecutor({
        plugins,
        resolveConnection: (id) => ({ id, baseUrl: sim.url }),
        resolveCredential: () => sim.token,
        log: () => undefined,
      });
      const base = { connectorKey: 'descript', connectionId: 'conn_descript' };
      const status: unknown[] = [];
      await executor.execute({
        ...base,
        action: 'status.get',
        input: {},
        onPage: (page) => void status.push(...page.records),
      });
      expect(status).toHaveLength(1);

      const ids: string[] = [];
      const list = {
        ...base,
        action: 'projects.list',
        input: { limit: 25 },
        onPage: (page: { records: unknown[] }) =>
          void ids.push(...page.records.map((record) => (record as { id: string }).id)),
      };
      const first = await executor.execute(list);
      expect(first).toMatchObject({ direction: 'source', records: 60, pages: 3 });
      expect(new Set(ids).size).toBe(60);
      // The next run starts at the committed checkpoint: nothing new, nothing read twice.
      const second = await executor.execute(list);
      expect(second).toMatchObject({ records: 0 });

      const importing: ExecuteRequest = {
        ...base,
        action: 'media_imports.create',
        environment: 'production',
        input: {
          project_name: 'E2E import',
          add_media: { 'Clips/intro.mp4': { url: 'https://media.example.com/intro.mp4?duration=30' } },
        },
        idempotencyKey: 'import-1',
      };
      const before = sim.requests.length;
      const refused = await executor.execute(importing).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApprovalRequiredError);
      expect(sim.requests.length).toBe(before);
      const approval = {
        digest: (refused as ApprovalRequiredError).digest,
        requestedBy: 'ana',
        decidedBy: 'ben',
        decision: 'approved' as const,
        expiresAt: null,
      };
      const started = await executor.execute({ ...importing, approval });
      const replayed = await executor.execute({ ...importing, approval });
      expect(started).toMatchObject({
        direction: 'destination',
        replayed: false,
        result: { job_id: expect.any(String) },
      });
      expect(replayed).toEqual({ ...started, replayed: true });
      expect(sim.requests.length).toBe(before + 1);
    } finally {
      await sim.close();
    }
  });
});
