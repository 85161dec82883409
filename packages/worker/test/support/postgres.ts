import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../../sdk/test/support/redis.js';

/**
 * A PostgreSQL server of the test's own: initdb in a temporary folder (its unix socket there
 * too), listening on 127.0.0.1 on a free port, with settings that trade durability for speed,
 * stopped and removed by `stop()`. PostgreSQL refuses to run as root: a test run as root starts
 * it as the system user postgres (`runuser -u postgres`), which owns the folder. The programs
 * come from PATH or /usr/lib/postgresql/<version>/bin; scripts/ensure-system.sh installs them.
 */

const run = promisify(execFile);

export interface PostgresServer {
  /** The URL of the server's `postgres` database, as user `plugboard` (trusted: no password). */
  url: string;
  port: number;
  /** A fresh, empty database on the server, for one test's isolation; its URL. */
  database(): Promise<string>;
  /** Stops the server the fast way (sessions ended) and starts it again: same port, same data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The folder holding initdb, pg_ctl and postgres, as ensure-system.sh looks for it. */
function programFolder(): string {
  const onPath = (process.env.PATH ?? '').split(':').filter((folder) => folder !== '');
  const debian = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => `/usr/lib/postgresql/${version}/bin`)
    : [];
  const folder = [...onPath, ...debian].find((candidate) =>
    ['initdb', 'pg_ctl', 'postgres'].every((program) => existsSync(join(candidate, program))),
  );
  if (!folder) throw new Error("PostgreSQL's initdb, pg_ctl and postgres were not found: run scripts/ensure-system.sh");
  return folder;
}

const asRoot = userInfo().uid === 0;
// In sbin, which a CI shell's PATH may leave out (scripts/ensure-system.sh makes sure it is there).
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path)) ?? 'runuser';

/** A program of the server's, as the user the server runs as. */
function command(folder: string, program: string, args: string[]): [string, string[]] {
  const path = join(folder, program);
  return asRoot ? [RUNUSER, ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

/** Starts the server and resolves once it accepts connections; rejects with its log when it exits first. */
function launch(folder: string, dir: string, port: number): Promise<ChildProcess> {
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: join(dir, 'socket'),
    // A test's data need not survive a crash of the machine.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    // In the data folder, not /dev/shm, which containers keep small.
    dynamic_shared_memory_type: 'mmap',
    max_connections: '60',
    shared_buffers: '16MB',
  };
  const args = [
    '-D',
    join(dir, 'data'),
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
  const [program, argv] = command(folder, 'postgres', args);
  const child = spawn(program, argv, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  return new Promise<ChildProcess>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      // Bounded: only the tail is kept for the failure message.
      log = (log + chunk.toString('utf8')).slice(-8000);
      if (log.includes('database system is ready to accept connections')) {
        child.stderr?.off('data', onData);
        child.stderr?.resume();
        child.off('exit', onExit);
        resolve(child);
      }
    };
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`postgres exited (${code ?? signal}) before it was ready:\n${log}`));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Stops the server, then waits for its process. `fast` ends open sessions (a restart under its
 * clients). `smart` first lets sessions end on their own for a few seconds: a pool's `end()`
 * resolves before its connections have closed, and a session the server ended meanwhile would
 * reach that pool as an error nobody listens for. Then the fast way.
 */
async function shutDown(folder: string, dir: string, child: ChildProcess, mode: 'fast' | 'smart'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = (how: string, seconds: number) => {
    const [program, argv] = command(folder, 'pg_ctl', [
      'stop',
      '-D',
      join(dir, 'data'),
      '-m',
      how,
      '-w',
      '-t',
      `${seconds}`,
    ]);
    return run(program, argv, { cwd: dir });
  };
  try {
    if (mode === 'smart') await stop('smart', 5).catch(() => stop('fast', 30));
    else await stop('fast', 30);
  } catch {
    child.kill('SIGKILL');
  }
  await exited;
}

/** Makes the folder and the cluster in it, owned by the user the server runs as. */
async function initialise(folder: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plugboard-pg-'));
  await mkdir(join(dir, 'socket'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    for (const path of [dir, join(dir, 'socket')]) await chown(path, Number(stdout), Number(group));
  }
  const args = ['-D', join(dir, 'data'), '-U', 'plugboard', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'];
  const [program, argv] = command(folder, 'initdb', args);
  await run(program, argv, { cwd: dir });
  return dir;
}

/** Starts a server on a free port; a port taken between choosing and binding is retried with another. */
export async function startPostgres(): Promise<PostgresServer> {
  const folder = programFolder();
  const dir = await initialise(folder);
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    try {
      let child = await launch(folder, dir, port);
      const url = `postgres://plugboard@127.0.0.1:${port}/postgres`;
      let databases = 0;
      return {
        url,
        port,
        async database() {
          databases += 1;
          const name = `test_${databases}`;
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query(`CREATE DATABASE ${name}`);
          } finally {
            await client.end();
          }
          return `postgres://plugboard@127.0.0.1:${port}/${name}`;
        },
        async restart() {
          await shutDown(folder, dir, child, 'fast');
          child = await launch(folder, dir, port);
        },
        async stop() {
          await shutDown(folder, dir, child, 'smart');
          await rm(dir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      lastError = error; // most likely the port was taken meanwhile: try another
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
