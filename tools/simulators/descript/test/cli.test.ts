import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Starts the CLI with `args`, gives what it printed to `use`, then stops it with SIGTERM and expects exit 0. */
async function withSimulator(
  args: string[],
  use: (started: { url: string; token: string; driveId: string }) => Promise<void>,
) {
  const child = spawn(process.execPath, [MAIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', () => reject(new Error('the simulator exited before printing')));
    });
    await use(JSON.parse(line));
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}

describe('the command line entry', () => {
  // The CLI runs from the build output; `pnpm test` builds before testing.
  it.skipIf(!existsSync(MAIN))('prints the base URL and token as one JSON line and stops on SIGTERM', async () => {
    await withSimulator(['--seed', '4', '--size', '1000'], async (started) => {
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const status = await fetch(`${started.url}/status`, { headers: { Authorization: `Bearer ${started.token}` } });
      expect(((await status.json()) as { drive_id: string }).drive_id).toBe(started.driveId);
    });
  });

  it.skipIf(!existsSync(MAIN))('holds every answer back by --latency milliseconds', async () => {
    await withSimulator(['--latency', '200'], async (started) => {
      // A lower bound only: a timer never fires before its time, however busy the machine.
      const sent = performance.now();
      const status = await fetch(`${started.url}/status`, { headers: { Authorization: `Bearer ${started.token}` } });
      expect(status.status).toBe(200);
      expect(performance.now() - sent).toBeGreaterThanOrEqual(195);
    });
  });

  it.skipIf(!existsSync(MAIN))('refuses a --latency that is not a whole number of ms', async () => {
    const child = spawn(process.execPath, [MAIN, '--latency', 'soon'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('--latency needs a non-negative integer, got soon');
  });
});
