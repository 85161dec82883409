#!/usr/bin/env node
// Builds a workspace package and the workspace packages it depends on, only those whose
// dist/ is missing or older than what it is built from (its sources, package.json, tsconfig,
// tsup config) or than a dependency rebuilt before it. It says on stderr when each build starts
// and ends, on a terminal or not (a CI log shows a long build moving); a failed build prints its
// output and exits 1.
//
//   node scripts/fresh-build.mjs @plugboard/cli [@plugboard/demo ...]
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The workspace's buildable packages by name: folder, dependencies inside the workspace. */
export function workspacePackages(root = ROOT) {
  const packages = new Map();
  const globs = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+(\S+)\s*$/.exec(line)?.[1])
    .filter(Boolean);
  for (const glob of globs) {
    const base = glob.replace(/\/\*$/, '');
    const folders = glob.endsWith('/*')
      ? readdirSync(join(root, base), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${base}/${entry.name}`)
      : [base];
    for (const folder of folders) {
      const file = join(root, folder, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      const dependencies = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies })
        .filter(([, range]) => String(range).startsWith('workspace:'))
        .map(([name]) => name);
      packages.set(pkg.name, { name: pkg.name, folder, buildable: Boolean(pkg.scripts?.build), dependencies });
    }
  }
  return packages;
}

function newest(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** When a package's build was made (its oldest dist/ file), 0 when it has none. */
function builtAt(dir) {
  const dist = join(dir, 'dist');
  if (!existsSync(dist)) return 0;
  let oldest = Infinity;
  for (const entry of readdirSync(dist, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) oldest = Math.min(oldest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return oldest === Infinity ? 0 : oldest;
}

/** What a package's build is made from (and the build every package shares), as of its newest change. */
export function sourcesChangedAt(dir, root = ROOT) {
  const inputs = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json', 'tsconfig.build.json'].map((input) =>
    join(dir, input),
  );
  return Math.max(newest(join(root, 'tsup.package.ts')), ...inputs.map(newest));
}

/** Whether a package needs building: no dist/, or one older than its sources. */
export function isStale(dir, root = ROOT) {
  const built = builtAt(dir);
  return built === 0 || sourcesChangedAt(dir, root) > built;
}

/** The packages to build for `targets`, dependencies first, each once. */
export function buildOrder(packages, targets) {
  const order = [];
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const pkg = packages.get(name);
    if (!pkg) throw new Error(`no workspace package named ${name}`);
    for (const dependency of pkg.dependencies) if (packages.has(dependency)) visit(dependency);
    if (pkg.buildable) order.push(pkg);
  };
  for (const target of targets) visit(target);
  return order;
}

/**
 * Builds what is stale in `targets`' closure; returns the names built. `say` hears one line
 * before each build and one after it, with the time it took.
 */
export async function freshBuild(targets, root = ROOT, say = () => {}) {
  const packages = workspacePackages(root);
  // A package is built when it is stale or a dependency of it is built first.
  const toBuild = [];
  for (const pkg of buildOrder(packages, targets)) {
    const built = new Set(toBuild.map(({ name }) => name));
    if (isStale(join(root, pkg.folder), root) || pkg.dependencies.some((name) => built.has(name))) toBuild.push(pkg);
  }
  for (const [index, pkg] of toBuild.entries()) {
    say(`building ${pkg.name} (${index + 1} of ${toBuild.length})`);
    const begun = performance.now();
    try {
      await run('pnpm', ['run', 'build'], { cwd: join(root, pkg.folder), maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      process.stderr.write(`${pkg.name}: the build failed\n${error.stdout ?? ''}${error.stderr ?? ''}`);
      process.exit(1);
    }
    say(`built ${pkg.name} in ${((performance.now() - begun) / 1000).toFixed(1)} s`);
  }
  return toBuild.map(({ name }) => name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const targets = process.argv.slice(2);
  if (targets.length === 0) {
    process.stderr.write('usage: node scripts/fresh-build.mjs PACKAGE [PACKAGE ...]\n');
    process.exit(2);
  }
  await freshBuild(targets, ROOT, (line) => process.stderr.write(`${line}\n`));
}
