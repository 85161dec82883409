import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The built `plugboard` binary as a person runs it at a terminal, and as a script or a log
 * reads it. At a terminal stderr is a pseudo-terminal made by `script` (util-linux; see
 * scripts/ensure-system.sh), so this runs the same with no terminal of its own, as in CI;
 * stdout goes to a file unless the test reads it from the terminal too.
 */

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const INSURANCE = fileURLToPath(new URL('../../../connectors/insurance', import.meta.url));
const SCRIPT = '/usr/bin/script';

let dir: string;
beforeAll(async () => {
  if (!existsSync(SCRIPT))
    throw new Error(`these tests need ${SCRIPT} (util-linux's script): scripts/ensure-system.sh installs it`);
  dir = await mkdtemp(join(tmpdir(), 'plugboard-terminal-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

interface Options {
  cwd?: string;
  env?: Record<string, string>;
  /** Where stdout goes at a terminal: a file (redirected, as `> out.json`), or the terminal. */
  stdout?: 'file' | 'terminal';
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function collect(child: ReturnType<typeof spawn>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const environment = (env: Record<string, string> = {}) => ({ ...process.env, CI: 'true', SHELL: '/bin/sh', ...env });

let runs = 0;

/** At a terminal: `stderr` is what the terminal shows (stdout too when it stays there), lines ending in \n. */
async function atTerminal(args: string[], options: Options = {}): Promise<Outcome> {
  const out = join(dir, `stdout-${runs++}`);
  const line = [process.execPath, BIN, ...args].map(quote).join(' ');
  const command = options.stdout === 'terminal' ? `exec ${line}` : `exec ${line} > ${quote(out)}`;
  const child = spawn(SCRIPT, ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: options.cwd ?? dir,
    env: environment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { code, stdout: shown } = await collect(child);
  // Clearing the line a progress bar may hold shows nothing.
  const terminal = shown.replaceAll('\r\x1b[2K', '').replaceAll('\r\n', '\n');
  if (options.stdout === 'terminal') return { code, stdout: terminal, stderr: terminal };
  return { code, stdout: await readFile(out, 'utf8'), stderr: terminal };
}

/** Off a terminal: stdout and stderr are pipes, as a script or CI reads them. */
function offTerminal(args: string[], options: Options = {}): Promise<Outcome> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? dir,
    env: environment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child);
}

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('plugboard at a terminal and off one', () => {
  it('names the nearest command for an unknown one, exits 2, and points at the help that lists the commands', async () => {
    const person = await atTerminal(['rnu']);
    expect(person.code).toBe(2);
    expect(person.stderr).toBe(
      "plugboard: unknown command 'rnu'; did you mean run?\nhint: plugboard --help lists the commands\n",
    );
    const script = await offTerminal(['rnu']);
    expect(script.code).toBe(2);
    expect(jsonLines(script.stderr)).toEqual([
      expect.objectContaining({
        code: 'invalid_input',
        message: "unknown command 'rnu'; did you mean run?",
        hint: 'plugboard --help lists the commands',
      }),
    ]);
  });

  it("gives a refused address the CLI's own hint for its class, as text at a terminal and JSON off one", async () => {
    const input = JSON.stringify({ applicant: { date_of_birth: '1980-01-01' }, cause: 'illness', confinement_days: 5 });
    const argv = (baseUrl: string) => [
      'run',
      'insurance',
      'hospital_cash_plus_quotes.create',
      '--input',
      input,
      '--base-url',
      baseUrl,
      '--environment',
      'production',
    ];
    const env = { PLUGBOARD_CREDENTIAL: 'terminal-test-token' };
    const internal = await atTerminal(argv('http://10.20.30.40:8080'), { env });
    expect(internal.code).toBe(2);
    expect(internal.stdout).toBe('');
    const [message, hint, ...rest] = internal.stderr.split('\n');
    expect(message).toBe(
      'plugboard: the host 10.20.30.40 is a private address, which production runs may not connect to; nothing was sent',
    );
    expect(hint).toBe(
      'hint: a provider inside your own network? set PLUGBOARD_ALLOW_NETWORK to its range, e.g. PLUGBOARD_ALLOW_NETWORK=10.0.0.0/8 (CIDR, comma-separated)',
    );
    expect(rest).toEqual(['']);

    const metadata = await atTerminal(argv('http://169.254.169.254'), { env });
    expect(metadata.code).toBe(2);
    expect(metadata.stderr).toContain('hint: a cloud metadata server is never a provider: check --base-url');
    expect(metadata.stderr).not.toContain('loopback');

    const script = await offTerminal(argv('http://10.20.30.40:8080'), { env });
    expect(script.code).toBe(2);
    const [error] = jsonLines(script.stderr);
    expect(error).toMatchObject({
      code: 'address_refused',
      statusCode: 403,
      hint: expect.stringContaining('10.0.0.0/8'),
    });
    for (const said of [internal.stderr, metadata.stderr, script.stderr]) {
      expect(said).not.toContain('createTransport');
      expect(said).not.toContain('network: {');
    }
  });

  it('says info lines as text at a terminal, as JSON lines off one; records stay JSON on stdout', async () => {
    const argv = ['replay', '--scenario', 'hospital_cash_plus_quotes.create'];
    const person = await atTerminal(argv, { cwd: INSURANCE });
    expect(person.code).toBe(0);
    expect(person.stderr).toMatch(
      /^replayed scenario 'hospital_cash_plus_quotes\.create' from \S+hospital_cash_plus_quotes\.create\.json with the network closed \(\d+ calls?, 1 records in 1 pages\)\n$/,
    );
    expect(jsonLines(person.stdout)).toHaveLength(1);
    const script = await offTerminal(argv, { cwd: INSURANCE });
    expect(script.code).toBe(0);
    expect(jsonLines(script.stderr)).toEqual([
      { level: 'info', message: expect.stringMatching(/^replayed scenario 'hospital_cash_plus_quotes\.create' from /) },
    ]);
    expect(script.stdout).toBe(person.stdout);
    // --json asks for JSON lines at a terminal too.
    const json = await atTerminal([...argv, '--json'], { cwd: INSURANCE });
    expect(jsonLines(json.stderr)).toEqual([expect.objectContaining({ level: 'info' })]);
  });

  it('exits 6, not 1, for an idempotency key nothing is kept under: a person must look', async () => {
    const argv = ['idempotency', 'show', 'order-404', '--state', join(dir, 'state')];
    const person = await atTerminal(argv);
    expect(person.code).toBe(6);
    expect(person.stderr).toMatch(
      /^plugboard: nothing is kept under idempotency key "order-404" in \S+ \(from --state\)\n/,
    );
    expect(person.stderr).toContain(
      'hint: a key is kept in the state folder of the runs that used it: pass the same --state, or PLUGBOARD_STATE\n',
    );
    const script = await offTerminal(argv);
    expect(script.code).toBe(6);
    expect(jsonLines(script.stderr)).toEqual([expect.objectContaining({ code: 'idempotency_key_unknown' })]);
  });

  it("describes a connector's actions as a table at a terminal, and as one JSON line off one", async () => {
    const person = await atTerminal(['describe', 'insurance'], { stdout: 'terminal' });
    expect(person.code).toBe(0);
    const lines = person.stdout.split('\n');
    expect(lines[0]).toMatch(/^insurance: /);
    expect(lines).toContain(
      '  hospital_cash_policies.create        destination  writes, billable  production  default: 120 per minute',
    );
    expect(person.stdout).not.toContain('{');
    const script = await offTerminal(['describe', 'insurance']);
    expect(script.code).toBe(0);
    expect(script.stderr).toBe('');
    const [described] = jsonLines(script.stdout);
    expect(described).toMatchObject({ key: 'insurance', actions: expect.any(Array) });
  });
});
