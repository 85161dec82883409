import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A redis-server of the test's own: on 127.0.0.1, a free port, a temporary
 * folder, no persistence, stopped by `stop()`. The binary is redis-server on
 * PATH; scripts/ensure-system.sh (run by `./pbw test`) installs it.
 */

const run = promisify(execFile);

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export type RedisResult = { server: RedisServer } | { server: undefined; reason: string };

/** A port nobody listens on now (it may be given to `startRedis` later). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Starts the server and resolves once it accepts connections; rejects with its output when it exits first. */
function launch(binary: string, port: number, dir: string): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--loglevel',
    'notice',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise<ChildProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not become ready in 15 s:\n${output}`));
    }, 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

/** Starts a redis-server on `port`, or on a free port of its choosing. */
export async function startRedis(port?: number): Promise<RedisResult> {
  let binary: string;
  try {
    const { stdout } = await run('sh', ['-c', 'command -v redis-server']);
    binary = stdout.trim();
  } catch {
    return {
      server: undefined,
      reason: 'redis-server is not on PATH; run scripts/ensure-system.sh, which installs it',
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'plugboard-redis-'));
  // A redis-server that is there but does not start is a failure, not a reason to skip.
  let lastError: unknown;
  for (let attempt = 0; attempt < (port === undefined ? 3 : 1); attempt += 1) {
    const listen = port ?? (await freePort());
    try {
      const child = await launch(binary, listen, dir);
      return {
        server: {
          url: `redis://127.0.0.1:${listen}`,
          port: listen,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) {
              const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
              child.kill('SIGTERM');
              const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
              await exited;
              clearTimeout(timer);
            }
            await rm(dir, { recursive: true, force: true });
          },
        },
      };
    } catch (error) {
      lastError = error; // most likely the port was taken meanwhile: try another
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
