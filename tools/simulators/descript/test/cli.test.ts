import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('the command line entry', () => {
  // The CLI runs from the build output; `pnpm test` builds before testing.
  it.skipIf(!existsSync(MAIN))('prints the base URL and token as one JSON line and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [MAIN, '--port', '0', '--seed', '4', '--size', '1000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', () => reject(new Error('the simulator exited before printing')));
      });
      const started = JSON.parse(line);
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const status = await fetch(`${started.url}/status`, { headers: { Authorization: `Bearer ${started.token}` } });
      expect(((await status.json()) as { drive_id: string }).drive_id).toBe(started.driveId);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
