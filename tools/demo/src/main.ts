import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { startDescriptSimulator } from '@plugboard/simulator-descript';

/**
 * The Quick start demo: the Descript connector against its local simulator, through the
 * `plugboard` command itself. Each step prints the command and runs exactly that command, so
 * every line can be pasted and run as printed while the simulator is up (`--keep-running`).
 *
 *   ./pbw demo [--keep-running]
 */

const { values } = parseArgs({ options: { 'keep-running': { type: 'boolean', default: false } } });
const CLI = join(dirname(createRequire(import.meta.url).resolve('@plugboard/cli/package.json')), 'dist', 'main.js');
const say = (text = '') => process.stdout.write(`${text}\n`);

const work = await mkdtemp(join(tmpdir(), 'plugboard-demo-'));
const simulator = await startDescriptSimulator({ port: 0, seed: 7, size: 12 });
const env = {
  // The simulator's token; production runs may reach it on 127.0.0.1.
  PLUGBOARD_CREDENTIAL: simulator.token,
  PLUGBOARD_ALLOW_NETWORK: '127.0.0.0/8',
};
const state = join(work, 'state');

/** A shell word: as it is when it needs no quotes, else in single quotes. */
function quote(word: string): string {
  return /^[\w./:@=,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Prints the command as a reader would type it, then runs exactly it. */
function plugboard(...args: string[]): Promise<Outcome> {
  say(`   $ ./pbw plugboard ${args.map(quote).join(' ')}`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (code === -1) reject(error);
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The platform Error JSON a refused run printed last on stderr. */
function refusal(outcome: Outcome): { code?: string; message?: string } {
  const last = outcome.stderr.trim().split('\n').at(-1) ?? '{}';
  try {
    return JSON.parse(last) as { code?: string; message?: string };
  } catch {
    return { message: last };
  }
}

function expectCode(outcome: Outcome, code: number, step: string): void {
  if (outcome.code !== code) throw new Error(`${step}: expected exit ${code}, got ${outcome.code}\n${outcome.stderr}`);
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

/** The last info line a command said on stderr (JSON lines here, stderr not being a terminal) that includes `text`. */
function said(outcome: Outcome, text = ''): string | undefined {
  const line = lines(outcome.stderr).findLast((entry) => entry.includes(text));
  return line === undefined ? undefined : (JSON.parse(line) as { message: string }).message;
}
const base = ['--base-url', simulator.url];
let failed = false;

try {
  say('Plugboard demo: the Descript connector against its local simulator, through the plugboard command.');
  say(`Simulator at ${simulator.url}; the demo's files in ${work}.`);
  say(
    'Every command below runs as printed (from the repository root) while the simulator is up: ./pbw demo --keep-running.',
  );
  say(`   $ export PLUGBOARD_CREDENTIAL=${env.PLUGBOARD_CREDENTIAL}`);
  say(`   $ export PLUGBOARD_ALLOW_NETWORK=${env.PLUGBOARD_ALLOW_NETWORK}   # production runs may reach 127.0.0.1`);

  say('\n1. Read every project; the checkpoint goes to the state folder');
  const list = ['run', 'descript', 'projects.list', '--input', '{"limit":5}', '--state', state, ...base];
  const first = await plugboard(...list);
  expectCode(first, 0, 'projects.list');
  say(`   ${lines(first.stdout).length} projects, as JSON lines on stdout`);

  say('\n2. A media import in production is billable: it needs an approval of exactly this run, by someone else');
  const media = {
    project_name: 'Demo interview',
    add_media: { 'interview.mp4': { url: 'https://media.example.com/interview.mp4?duration=95' } },
  };
  const importing = [
    'run',
    'descript',
    'media_imports.create',
    '--environment',
    'production',
    '--input',
    JSON.stringify(media),
    '--idempotency-key',
    'demo-import',
    '--state',
    state,
    ...base,
  ];
  const before = simulator.requests.length;
  const asked = await plugboard(...importing);
  expectCode(asked, 3, 'the import without approval');
  const digest = /digest (sha256:[0-9a-f]{64})/.exec(refusal(asked).message ?? '')?.[1];
  if (!digest) throw new Error(`the refused import names no digest:\n${asked.stderr}`);
  say(
    `   exit 3, approval required: the approver quotes ${digest}; nothing was sent (${simulator.requests.length - before} requests)`,
  );
  const decision = (decidedBy: string) =>
    JSON.stringify({ digest, requestedBy: 'ada@example.com', decidedBy, decision: 'approved', expiresAt: null });
  const self = await plugboard(...importing, '--approval', decision('ada@example.com'));
  expectCode(self, 3, 'the self-approved import');
  say(`   exit 3, ${refusal(self).message}`);
  const approved = await plugboard(...importing, '--approval', decision('ben@example.com'));
  expectCode(approved, 0, 'the approved import');
  const receipt = JSON.parse(approved.stdout) as { job_id: string; project_id: string };
  say(
    `   approved by ben@example.com: job ${receipt.job_id}, project ${receipt.project_id}; the provider saw ${simulator.requests.length - before} request`,
  );
  const again = await plugboard(...importing, '--approval', decision('ben@example.com'));
  expectCode(again, 0, 'the repeated import');
  const same = again.stdout === approved.stdout;
  say(
    `   the same key again: ${same ? 'the same result, replayed' : 'a different result'}; the provider still saw ${simulator.requests.length - before} request`,
  );

  say('\n3. Read again from the checkpoint: only what changed since, the imported project');
  const second = await plugboard(...list);
  expectCode(second, 0, 'projects.list again');
  say(`   ${said(second, 'resumed from the checkpoint') ?? `${lines(second.stdout).length} records`}`);

  say('\n4. Record a scenario, then replay it with the network closed');
  const fixtures = join(work, 'fixtures');
  const recorded = await plugboard(
    'record',
    'descript',
    'status.get',
    '--scenario',
    'status',
    '--fixtures',
    fixtures,
    ...base,
  );
  expectCode(recorded, 0, 'record');
  say(`   ${said(recorded)}`);
  const replayed = await plugboard('replay', 'descript', '--scenario', 'status', '--fixtures', fixtures);
  expectCode(replayed, 0, 'replay');
  say(`   ${said(replayed)}`);

  say('\n5. The public catalogue: entries, JSON Schemas, types, OpenAPI and a static site');
  const catalogue = join(work, 'catalogue');
  const written = await plugboard('catalogue', 'descript', '--out', catalogue);
  expectCode(written, 0, 'catalogue');
  say(`   ${lines(written.stdout)[0] ?? ''}; open ${join(catalogue, 'index.html')}`);
  say('\nDone.');
} catch (error) {
  failed = true;
  process.stderr.write(`demo: ${(error as Error).message}\n`);
}

if (values['keep-running'] && !failed) {
  say(
    `\nThe simulator keeps running at ${simulator.url}: paste any command above. Ctrl+C stops it and removes ${work}.`,
  );
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
}
await simulator.close();
await rm(work, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
