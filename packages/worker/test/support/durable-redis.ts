import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../sdk/test/support/redis.js';

/**
 * A redis-server that keeps its data across a restart: append-only file in a temporary folder of
 * its own, on a free port of 127.0.0.1. `restart()` stops it (SIGTERM: the file is flushed) and
 * starts it again on the same port with the same folder, as an operator restarting the queue would.
 */
export interface DurableRedis {
  url: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
  const child = spawn('redis-server', [...args, '--appendonly', 'yes', '--appendfsync', 'always'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) resolve(child);
    });
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    child.once('exit', (code, signal) => reject(new Error(`redis-server exited (${code ?? signal}):\n${output}`)));
  });
}

async function end(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

export async function startDurableRedis(): Promise<DurableRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'plugboard-durable-redis-'));
  const port = await freePort();
  let child = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      await end(child);
      child = await launch(port, dir);
    },
    async stop() {
      await end(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
