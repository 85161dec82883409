import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * A local npm registry for the end-to-end test: Verdaccio in a child process, listening on
 * 127.0.0.1 and a free port, storage in a temporary folder, no uplinks (nothing is ever
 * proxied to another registry: a package not published here is a 404), publishing of
 * `@plugboard/*` and the few third-party packages the test publishes itself allowed to a
 * throwaway user registered on it. With `authorsPublish`, anyone who reaches it (it listens on
 * loopback only) may also publish a package outside `@plugboard`, with any token: npm insists on
 * one before a publish, and a token this registry did not sign is taken for no user.
 */

/** The token `./pbw local-registry` tells an author to give npm: a placeholder, no secret. */
export const AUTHOR_TOKEN = 'plugboard-local-registry';

/** A proxy address nothing listens on (the discard port of the loopback address). */
export const DEAD_PROXY = 'http://127.0.0.1:9/';

export interface LocalRegistry {
  url: string;
  port: number;
  /** A user config for npm with only this registry and the throwaway token. */
  npmrc: string;
  /** The throwaway user's token: it publishes. */
  token: string;
  /** An empty global config, so no machine-wide setting applies. */
  globalNpmrc: string;
  log: string[];
  /** The registry's process. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * `port`: 0 (the default) for a free one; `preload`: a module Node imports before the registry;
 * `authorsPublish`: anyone may publish a package outside `@plugboard` (with any token).
 */
export async function startRegistry(
  dir: string,
  {
    port: wanted = 0,
    preload,
    authorsPublish = false,
  }: { port?: number; preload?: string; authorsPublish?: boolean } = {},
): Promise<LocalRegistry> {
  const storage = join(dir, 'storage');
  await mkdir(storage, { recursive: true });
  const config = {
    storage,
    uplinks: {},
    packages: {
      '@plugboard/*': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
      '**': { access: '$all', publish: authorsPublish ? '$all' : '$authenticated', unpublish: '$authenticated' },
    },
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 1 } },
    // Signed tokens: a legacy token makes the registry verify the password (bcrypt) on every
    // request, hundreds of milliseconds each on a busy machine.
    security: { api: { legacy: false, jwt: { sign: { expiresIn: '1d' } } } },
    web: { enable: false },
    log: { type: 'stdout', format: 'json', level: 'warn' },
    max_body_size: '100mb',
    publish: { allow_offline: true },
  };
  const configFile = join(dir, 'config.yaml');
  // JSON is YAML.
  await writeFile(configFile, `${JSON.stringify(config, null, 2)}\n`);

  const server = join(import.meta.dirname, 'verdaccio-server.mjs');
  const child: ChildProcess = spawn(
    process.execPath,
    [...(preload ? ['--import', preload] : []), server, configFile, String(wanted)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: dir,
    },
  );
  const log: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  // Never outlive the test process, however it ends.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', (code, signal) => {
    process.removeListener('exit', killOnExit);
    log.push(`verdaccio exited (${signal ?? `code ${code}`})\n`);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`verdaccio did not start in 60 s:\n${log.join('')}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`verdaccio exited with ${code}:\n${log.join('')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { port?: number };
        if (typeof parsed.port === 'number') {
          clearTimeout(timer);
          resolve(parsed.port);
          return;
        }
      } catch {
        // a log line
      }
      log.push(line);
    });
  });
  const url = `http://127.0.0.1:${port}/`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });

  try {
    // A throwaway user on this registry only; its token publishes.
    const answer = await fetch(`${url}-/user/org.couchdb.user:e2e`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'e2e',
        password: `throwaway-${process.pid}-${Date.now()}`,
        type: 'user',
        roles: [],
        date: new Date().toISOString(),
      }),
    });
    const body = (await answer.json()) as { token?: string; error?: string };
    if (!answer.ok || !body.token)
      throw new Error(`registering the throwaway user failed: ${answer.status} ${JSON.stringify(body)}`);
    const npmrc = join(dir, 'npmrc');
    // Everything but this registry goes to a proxy on a closed local port: a request for any
    // other host fails here instead of leaving the machine.
    await writeFile(
      npmrc,
      [
        `registry=${url}`,
        `//127.0.0.1:${port}/:_authToken=${body.token}`,
        `proxy=${DEAD_PROXY}`,
        `https-proxy=${DEAD_PROXY}`,
        'noproxy=127.0.0.1',
        'audit=false',
        'fund=false',
        'update-notifier=false',
        // A busy machine answers late: npm waits and tries again rather than failing the test.
        'fetch-retries=4',
        'fetch-timeout=120000',
        // Fewer requests at once: the registry shares the machine's cores with npm and the tests.
        'maxsockets=4',
        '',
      ].join('\n'),
    );
    const globalNpmrc = join(dir, 'global-npmrc');
    await writeFile(globalNpmrc, '');
    return { url, port, npmrc, token: body.token, globalNpmrc, log, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
