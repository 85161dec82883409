import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { nodeTooOld } from '../src/node-version.js';
import { bufferIo } from './support.js';

/** The built `plugboard` binary, as a user runs it. */
const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function firstLine(child: ReturnType<typeof spawn>): Promise<{ url: string; credential: string }> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return JSON.parse(line) as { url: string; credential: string };
  throw new Error('the simulator printed nothing');
}

describe('the plugboard binary', () => {
  it('simulates insurance and runs hospital_cash_quotes.compare against it, printing the three tiers', async ({
    expect,
  }) => {
    const simulator = spawn(process.execPath, [BIN, 'simulate', 'insurance', '--port', '0']);
    const { url, credential } = await firstLine(simulator);
    try {
      const input = JSON.stringify({
        applicant: { date_of_birth: '1988-04-12' },
        cause: 'illness',
        confinement_days: 7,
      });
      const result = await run(
        ['run', 'insurance', 'hospital_cash_quotes.compare', '--input', input, '--base-url', url],
        { PLUGBOARD_CREDENTIAL: credential },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const comparison = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(JSON.stringify(comparison)).toMatch(/basic/);
      expect(JSON.stringify(comparison)).toMatch(/classic/);
      expect(JSON.stringify(comparison)).toMatch(/plus/);
    } finally {
      simulator.kill('SIGINT');
    }
    const code = await new Promise((resolve) => simulator.on('close', resolve));
    expect(code).toBe(0);
  });

  it('exits quietly when the reader closes the pipe early', async ({ expect }) => {
    const simulator = spawn(process.execPath, [BIN, 'simulate', 'descript', '--port', '0', '--size', '300']);
    const { url, credential } = await firstLine(simulator);
    try {
      const child = spawn(
        process.execPath,
        [BIN, 'run', 'descript', 'projects.list', '--input', '{"limit":100}', '--base-url', url],
        {
          env: { ...process.env, PLUGBOARD_CREDENTIAL: credential },
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      // Like `| head -n 1`: read one line, then close the pipe.
      const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
      child.stdout.destroy();
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(JSON.parse(first.value as string)).toHaveProperty('id');
      expect(code).toBe(0);
      expect(stderr).toBe('');
    } finally {
      simulator.kill('SIGTERM');
    }
  });

  // The last three start what they need and run side by side, each waiting on its processes while the
  // others work.

  // The simulator is the binary; the fourteen runs are the CLI's own runCli in this process, finding the
  // connector as the binary does (no pack given): a process per run would prove no more than the tests
  // above and below, and cost a Node start each.
  it.concurrent('runs each of the fourteen Descript actions against plugboard simulate descript', async ({
    expect,
  }) => {
    const simulator = spawn(process.execPath, [BIN, 'simulate', 'descript', '--port', '0', '--size', '12']);
    const { url, credential } = await firstLine(simulator);
    const ran: string[] = [];
    const descript = async (action: string, input: unknown) => {
      const { io, stdout, stderr } = bufferIo({ PLUGBOARD_CREDENTIAL: credential });
      const code = await runCli(['run', 'descript', action, '--input', JSON.stringify(input), '--base-url', url], io);
      ran.push(action);
      return {
        code,
        stderr: stderr(),
        records: stdout()
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, any>),
      };
    };
    const ok = async (action: string, input: unknown) => {
      const result = await descript(action, input);
      expect(result.stderr, action).toBe('');
      expect(result.code, action).toBe(0);
      expect(result.records.length, action).toBeGreaterThan(0);
      return result.records;
    };
    try {
      expect((await ok('status.get', {}))[0]).toMatchObject({ api_version: '1.2' });
      await ok('agent_models.list', {});
      const projects = await ok('projects.list', { limit: 5 });
      expect(projects).toHaveLength(12);
      const projectId = projects[0]!.id as string;
      expect((await ok('projects.get', { project_id: projectId }))[0]).toHaveProperty('id', projectId);
      await ok('compositions.list', { project_id: projectId });
      await ok('media_files.list', { project_id: projectId });
      await ok('drive_items.search', { query: String(projects[0]!.name).split(' ')[0] });
      const receipt = (
        await ok('media_imports.create', {
          project_name: 'CLI import',
          add_media: { 'a.mp4': { url: 'https://media.example.com/a.mp4' } },
        })
      )[0]!;
      expect((await ok('jobs.get', { job_id: receipt.job_id }))[0]).toHaveProperty('job_id', receipt.job_id);
      await ok('jobs.list', {});
      await ok('agent_edits.create', { project_id: receipt.project_id, prompt: 'tighten the intro' });
      expect((await ok('transcripts.get', { project_id: projectId, format: 'srt' }))[0]).toMatchObject({
        format: 'srt',
      });
      // Some seeded share pages are still processing or failed (409): find a published one.
      let published: Record<string, any>[] | undefined;
      for (const project of projects) {
        const { records: publishes } = await descript('publishes.list', { project_id: project.id });
        for (const publish of publishes) {
          const attempt = await descript('published_projects.get', { slug: publish.share_url });
          if (attempt.code === 0) published = attempt.records;
          else
            expect(JSON.parse(attempt.stderr.trim().split('\n').at(-1)!)).toMatchObject({
              code: 'conflict',
              statusCode: 409,
            });
          if (published) break;
        }
        if (published) break;
      }
      expect(published?.[0]).toHaveProperty('metadata');
      expect(new Set(ran).size).toBe(14);
    } finally {
      simulator.kill('SIGTERM');
    }
  });

  it.concurrent('exits 2 on bad input and 1 on a failed run, with the platform Error on stderr', async ({ expect }) => {
    // The failed run is a write that is never retried: a retried read would back off for seconds of real
    // time before it failed.
    const [bad, failed] = await Promise.all([
      run(
        [
          'run',
          'insurance',
          'hospital_cash_basic_quotes.create',
          '--input',
          '{"confinement_days":1}',
          '--base-url',
          'http://127.0.0.1:9',
        ],
        {
          PLUGBOARD_CREDENTIAL: 'x-credential-1',
        },
      ),
      run(
        [
          'run',
          'descript',
          'media_imports.create',
          '--input',
          JSON.stringify({
            project_name: 'CLI import',
            add_media: { 'a.mp4': { url: 'https://media.example.com/a.mp4' } },
          }),
          '--base-url',
          'http://127.0.0.1:9',
        ],
        { PLUGBOARD_CREDENTIAL: 'x-credential-1' },
      ),
    ]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr.trim().split('\n').at(-1)!)).toMatchObject({
      error: 'request_failed',
      code: 'invalid_input',
    });
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stderr.trim().split('\n').at(-1)!)).toMatchObject({
      code: 'network_error',
      statusCode: 502,
    });
    expect(failed.stdout).toBe('');
  });

  it.concurrent('writes the catalogue of the pack', async ({ expect }) => {
    const out = await mkdtemp(join(tmpdir(), 'plugboard-catalogue-'));
    const result = await run(['catalogue', 'descript', 'insurance', '--out', out]);
    expect(result.code).toBe(0);
    expect((await readdir(join(out, 'connectors'))).sort()).toEqual(['descript.json', 'insurance.json']);
  });
});

/** The machine's own Node when it is older than the CLI needs (Debian's, say), else undefined. */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (nodeTooOld(version)) return candidate;
  }
  return undefined;
}

const OLD_NODE = oldNode();

describe.skipIf(!OLD_NODE)('the plugboard binary on a Node older than it needs', () => {
  it('says which Node it needs and exits 2, for --help and for a run', async () => {
    for (const args of [['--help'], ['run', 'descript', 'status.get']]) {
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(OLD_NODE!, [BIN, ...args]);
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^plugboard: Node \d+\.\d+\.\d+ is too old; Plugboard needs Node 22\.20\.0 or newer \(https:\/\/nodejs\.org\)\n$/,
      );
    }
  });
});
