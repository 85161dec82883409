import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GuideShell } from './support/guide.js';
import { assertBuilt, cleanEnv, ROOT } from './support/packages.js';

/**
 * The Quick start demo, as a reader runs it: every step's outcome, then commands it printed,
 * pasted into a shell as printed (from the repository root) while `--keep-running` keeps its
 * simulator up, then Ctrl+C.
 */

let demo: ChildProcess;
let output = '';

beforeAll(async () => {
  await assertBuilt(['tools/demo', 'packages/cli', 'connectors/descript', 'tools/simulators/descript']);
  demo = spawn(process.execPath, [join(ROOT, 'tools', 'demo', 'dist', 'main.js'), '--keep-running'], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  demo.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  demo.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const check = () => (/keeps running/.test(output) ? resolve() : undefined);
    demo.stdout!.on('data', check);
    demo.once('exit', (code) =>
      reject(new Error(`the demo exited (${code}) before keeping its simulator running:\n${output}`)),
    );
  });
});

afterAll(() => {
  if (demo.exitCode === null) demo.kill('SIGKILL');
});

describe('./pbw demo --keep-running', () => {
  test('shows a resumed read, a billable import refused without approval and for self-approval, approved by another and replayed, a recording replayed offline, the catalogue', () => {
    expect(output).toMatch(/\d+ projects, as JSON lines on stdout/);
    expect(output).toMatch(
      /exit 3, approval required: the approver quotes sha256:[0-9a-f]{64}; nothing was sent \(0 requests\)/,
    );
    expect(output).toMatch(/ada@example\.com approved their own request/);
    expect(output).toMatch(/approved by ben@example\.com: job .*; the provider saw 1 request/);
    expect(output).toContain('the same key again: the same result, replayed; the provider still saw 1 request');
    expect(output).toMatch(/resumed from the checkpoint in .*; 1 new record/);
    expect(output).toMatch(
      /replayed scenario 'status' from .* with the network closed \(1 calls, 1 records in 1 pages\)/,
    );
    expect(output).toMatch(/catalogue: 1 connector, \d+ operations/);
    // What the CLI said is shown in words, not as the JSON lines it writes to a pipe.
    expect(output).not.toContain('"level"');
  });

  test('its commands run as printed while the simulator is up', async () => {
    const printed = output
      .split('\n')
      .filter((line) => line.startsWith('   $ '))
      .map((line) => line.slice('   $ '.length));
    const exports = printed.filter((line) => line.startsWith('export ')).map((line) => line.replace(/\s+#.*$/, ''));
    // The replayed import (the last import command), the resumed read, the replay and the catalogue.
    const imports = printed.filter((line) => line.includes('media_imports.create'));
    const chosen = [
      imports.at(-1)!,
      ...printed.filter((line) => / (projects\.list|replay|catalogue) /.test(line)).slice(-3),
    ];
    expect(chosen).toHaveLength(4);
    const shell = new GuideShell(await mkdtemp(join(tmpdir(), 'plugboard-demo-shell-')), cleanEnv(), ROOT);
    for (const command of chosen) {
      const result = await shell.run([...exports, command].join('\n'), 120_000);
      expect(result.code, `${command}\n${result.output}`).toBe(0);
    }
  });

  test('Ctrl+C stops it and removes its files', async () => {
    const work = /the demo's files in (\S+)\./.exec(output)![1]!;
    expect(existsSync(work)).toBe(true);
    const exited = new Promise<number | null>((resolve) => demo.once('exit', resolve));
    demo.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(work)).toBe(false);
  });
});
