// The public surface of every package, as API Extractor reports it: one report per entry of a
// package's `exports`, committed as packages/<pkg>/api/<entry>.api.md.
//   node scripts/api-report.mjs          rewrites the reports (root script: `pnpm run api`)
//   node scripts/api-report.mjs --check  fails when a report differs from the built declarations
//   --root DIR                           the workspace whose packages/* are read (default: this one)
// Both read dist/*.d.ts (build first), and both fail on a forgotten export: a type that an
// entry's declarations mention but the entry does not export. A subpath entry (`./host`) may
// also rely on its package's main entry, which its users import too; the main entry must export
// every type it mentions itself.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const { values: args } = parseArgs({ options: { check: { type: 'boolean' }, root: { type: 'string' } } });
const ROOT = resolve(args.root ?? join(import.meta.dirname, '..'));
const check = args.check === true;

/**
 * Every entry of a package's `exports` that has types: `.` is reported as `index`, `./host` as
 * `host`; `specifier` is how a user imports it (`@plugboard/sdk/host`).
 */
function entries(folder) {
  const { name, exports } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  return Object.entries(exports ?? {})
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([subpath, target]) => ({
      report: subpath === '.' ? 'index' : subpath.slice(2),
      specifier: subpath === '.' ? name : `${name}/${subpath.slice(2)}`,
      types: join(folder, target.types),
      main: subpath === '.',
    }));
}

/** API Extractor's settings for one entry: the report's place, and which of its notes count. */
function extractorConfig(folder, entry, temp) {
  return ExtractorConfig.prepare({
    configObjectFullPath: join(folder, 'api', `${entry.report}.api-extractor.json`),
    packageJsonFullPath: join(folder, 'package.json'),
    configObject: {
      projectFolder: folder,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder: join(folder, 'api'),
        reportTempFolder: temp,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          // The packages mark no release stages (@public, @beta): everything exported is public.
          'ae-missing-release-tag': { logLevel: 'none' },
          // A note per undocumented member, located by a bundle chunk's hashed name and line:
          // it changed the report with every internal edit and hid the changes that matter.
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
          // Judged below: a subpath entry may rely on its package's main entry.
          'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
        },
        // Comments are written for readers, not checked as TSDoc.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  });
}

/** One job per entry of every package under packages/; a missing declaration file is a failure. */
function jobsOf(temp, failed) {
  const jobs = [];
  for (const pkg of readdirSync(join(ROOT, 'packages')).sort()) {
    const folder = join(ROOT, 'packages', pkg);
    const all = entries(folder);
    for (const entry of all) {
      if (!existsSync(entry.types)) {
        failed.push(`${relative(ROOT, entry.types)} is missing: build first (pnpm run build)`);
        continue;
      }
      if (!check) mkdirSync(join(folder, 'api'), { recursive: true });
      jobs.push({
        entry,
        config: extractorConfig(folder, entry, join(temp, pkg)),
        report: relative(ROOT, join(folder, 'api', `${entry.report}.api.md`)),
        // What a subpath entry's users import besides it.
        base: entry.main ? undefined : all.find((other) => other.main && existsSync(other.types)),
      });
    }
  }
  return jobs;
}

/** The names a declaration file exports, as TypeScript reads it (re-exports included). */
function exportedNames(program, file) {
  const source = program.getSourceFile(file);
  const checker = program.getTypeChecker();
  const module = source && checker.getSymbolAtLocation(source);
  return new Set(module ? checker.getExportsOfModule(module).map((symbol) => symbol.name) : []);
}

/**
 * Runs API Extractor on every entry. Returns the reports written, those that differ from the
 * build (check), the entries it failed on, and each forgotten export as `specifier: Type`.
 */
function report(temp) {
  const failed = [];
  const jobs = jobsOf(temp, failed);
  const outcome = { updated: [], changed: [], failed, forgotten: new Set() };
  if (jobs.length === 0) return outcome;
  // One TypeScript program for every entry: reading the declarations once is most of the time.
  const compilerState = CompilerState.create(jobs[0].config, {
    additionalEntryPoints: jobs.map((job) => job.config.mainEntryPointFilePath),
  });
  const exportsOf = new Map();
  const exported = (file, symbol) => {
    if (!exportsOf.has(file)) exportsOf.set(file, exportedNames(compilerState.program, file));
    return exportsOf.get(file).has(symbol);
  };
  for (const { entry, config, report, base } of jobs) {
    const result = Extractor.invoke(config, {
      localBuild: !check,
      compilerState,
      messageCallback(message) {
        if (message.messageId === 'ae-forgotten-export') {
          // API Extractor numbers a name that a global type also has (ProgressEvent_2).
          const symbol = (/The symbol "([^"]+)"/.exec(message.text)?.[1] ?? '').replace(/_\d+$/, '');
          if (!(base && exported(base.types, symbol)))
            outcome.forgotten.add(`${entry.specifier}: ${symbol} (${report})`);
        }
        if (message.category === 'Extractor') {
          // What the report records is read there; a forgotten export is judged above.
          message.logLevel = 'none';
          message.handled = true;
        }
        // The compiler's version and the report's own notices: this script says what changed, once.
        if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
        if (/^console-api-report-(?:not-copied|diff|copied|unchanged|created)$/.test(message.messageId))
          message.handled = true;
      },
    });
    if (!result.succeeded) (result.apiReportChanged ? outcome.changed : outcome.failed).push(report);
    else if (!check && result.apiReportChanged) outcome.updated.push(report);
  }
  return outcome;
}

const temp = mkdtempSync(join(tmpdir(), 'plugboard-api-'));
let outcome;
try {
  outcome = report(temp);
} finally {
  rmSync(temp, { recursive: true, force: true });
}
const { updated, changed, failed, forgotten } = outcome;
for (const report of updated) console.log(`updated ${report}`);
if (forgotten.size > 0) {
  console.error(
    `Types an entry's declarations mention but the entry does not export (API Extractor's ae-forgotten-export):\n  ${[...forgotten].sort().join('\n  ')}\n` +
      "Export each from the entry that mentions it (a subpath entry may rely on its package's main entry instead), " +
      'or change the declaration so that it no longer mentions the type.',
  );
}
if (changed.length > 0) {
  console.error(
    `The public API changed and its report does not say so:\n  ${changed.join('\n  ')}\n` +
      "If the change is meant, run 'pnpm run api' (or './pbw api') and commit the updated reports with it.",
  );
}
if (failed.length > 0) console.error(`API Extractor failed:\n  ${failed.join('\n  ')}`);
process.exitCode = changed.length + failed.length + forgotten.size > 0 ? 1 : 0;
