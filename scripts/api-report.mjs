// The public surface of every package, as API Extractor reports it: one report per entry of a
// package's `exports`, committed as packages/<pkg>/api/<entry>.api.md.
//   node scripts/api-report.mjs          rewrites the reports (root script: `pnpm run api`)
//   node scripts/api-report.mjs --check  fails when a report differs from the built declarations
// Both read dist/*.d.ts: build first.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = join(import.meta.dirname, '..');
const check = process.argv.includes('--check');
const temp = mkdtempSync(join(tmpdir(), 'plugboard-api-'));

/** Every entry of a package's `exports` that has types: `.` is reported as `index`, `./host` as `host`. */
function entries(folder) {
  const { name, exports } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  return Object.entries(exports ?? {})
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([subpath, target]) => ({ name, report: subpath === '.' ? 'index' : subpath.slice(2), types: target.types }));
}

/** True when one of the package's entries exports `symbol` (as its declarations in dist/ say). */
function exportedByPackage(folder, symbol) {
  return entries(folder).some((entry) => {
    const declarations = readFileSync(join(folder, entry.types), 'utf8');
    return [...declarations.matchAll(/export (?:type )?\{([^}]*)\}/g)].some((list) =>
      list[1].split(',').some(
        (name) =>
          name
            .trim()
            .split(/\s+as\s+/)
            .at(-1) === symbol,
      ),
    );
  });
}

const forgotten = [];
const changed = [];
const failed = [];
const jobs = [];
try {
  for (const pkg of readdirSync(join(ROOT, 'packages')).sort()) {
    const folder = join(ROOT, 'packages', pkg);
    for (const entry of entries(folder)) {
      const mainEntryPointFilePath = join(folder, entry.types);
      if (!existsSync(mainEntryPointFilePath)) {
        failed.push(`${relative(ROOT, mainEntryPointFilePath)} is missing: build first (pnpm run build)`);
        continue;
      }
      const config = ExtractorConfig.prepare({
        configObjectFullPath: join(folder, 'api', `${entry.report}.api-extractor.json`),
        packageJsonFullPath: join(folder, 'package.json'),
        configObject: {
          projectFolder: folder,
          mainEntryPointFilePath,
          compiler: {
            overrideTsconfig: {
              compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
            },
          },
          apiReport: {
            enabled: true,
            reportFileName: entry.report,
            reportFolder: join(folder, 'api'),
            reportTempFolder: join(temp, pkg),
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
              // Judged below: a type the package's other entry exports is not forgotten.
              'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
            },
            // Comments are written for readers, not checked as TSDoc.
            tsdocMessageReporting: { default: { logLevel: 'none' } },
          },
        },
      });
      if (!check) mkdirSync(join(folder, 'api'), { recursive: true });
      jobs.push({ config, report: relative(ROOT, join(folder, 'api', `${entry.report}.api.md`)), siblings: folder });
    }
  }
  // One TypeScript program for every entry: reading the declarations once is most of the time.
  const compilerState =
    jobs.length > 0
      ? CompilerState.create(jobs[0].config, {
          additionalEntryPoints: jobs.map((job) => job.config.mainEntryPointFilePath),
        })
      : undefined;
  for (const { config, report, siblings } of jobs) {
    const result = Extractor.invoke(config, {
      localBuild: !check,
      compilerState,
      messageCallback(message) {
        if (message.messageId === 'ae-forgotten-export') {
          // API Extractor numbers a name that a global type also has (ProgressEvent_2).
          const symbol = (/The symbol "([^"]+)"/.exec(message.text)?.[1] ?? '').replace(/_\d+$/, '');
          if (!exportedByPackage(siblings, symbol)) forgotten.push(`${report}: ${symbol}`);
        }
        if (message.category === 'Extractor') {
          // What the report records is read there; a forgotten export is listed above. Neither fails the check.
          message.logLevel = 'none';
          message.handled = true;
        }
        // The compiler's version and the report's own notices: this script says what changed, once.
        if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
        if (/^console-api-report-(?:not-copied|diff|copied|unchanged|created)$/.test(message.messageId))
          message.handled = true;
      },
    });
    if (!result.succeeded) (result.apiReportChanged ? changed : failed).push(report);
    else if (!check && result.apiReportChanged) console.log(`updated ${report}`);
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

// A note for whoever rewrites the reports; the check stays quiet about it.
if (!check && forgotten.length > 0) {
  console.warn(`Types the public API uses but no entry exports:\n  ${forgotten.join('\n  ')}`);
}
if (changed.length > 0) {
  console.error(
    `The public API changed and its report does not say so:\n  ${changed.join('\n  ')}\n` +
      "If the change is meant, run 'pnpm run api' (or './pbw api') and commit the updated reports with it.",
  );
}
if (failed.length > 0) console.error(`API Extractor failed:\n  ${failed.join('\n  ')}`);
process.exitCode = changed.length + failed.length > 0 ? 1 : 0;
