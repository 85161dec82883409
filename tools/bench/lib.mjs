// What the HTTP pipeline benchmarks (p1-requests, p2-read, p3-window, p4-cold-run) share:
// loading built packages, medians, child processes, free ports, the Descript simulator
// and a redis-server of their own. Not a benchmark itself.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Imports a built file of the repository, or says to build first. */
export function built(relative) {
  const path = join(root, relative);
  if (!existsSync(path)) {
    console.error(`bench: ${relative} is missing; run './pbw build' first`);
    process.exit(1);
  }
  return import(pathToFileURL(path).href);
}

/** The path of a built file of the repository, or says to build first. */
export function builtPath(relative) {
  const path = join(root, relative);
  if (!existsSync(path)) {
    console.error(`bench: ${relative} is missing; run './pbw build' first`);
    process.exit(1);
  }
  return path;
}

let stripping = false;

/**
 * Imports a TypeScript file of the tests (a rig, a server of their own) through Node's own type
 * stripping: a resolve hook maps its `./x.js` imports to the `.ts` files beside them.
 */
export function importTypeStripped(relative) {
  if (!stripping) {
    stripping = true;
    registerHooks({
      resolve(specifier, context, next) {
        if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
          const source = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
          if (existsSync(fileURLToPath(source))) return next(source.href, context);
        }
        return next(specifier, context);
      },
    });
  }
  return import(pathToFileURL(join(root, relative)).href);
}

export function median(list) {
  if (list.length === 0) return Number.NaN;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted.length % 2
    ? sorted[(sorted.length - 1) / 2]
    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
}

export function positiveInteger(name, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`bench: --${name} must be a whole number of at least 1, not '${text}'`);
    process.exit(2);
  }
  return value;
}

export function integerList(name, text) {
  return String(text)
    .split(',')
    .map((part) => part.trim().replace(/_/g, ''))
    .filter(Boolean)
    .map((part) => positiveInteger(name, part));
}

export const round1 = (value) => Math.round(value * 10) / 10;
export const round2 = (value) => Math.round(value * 100) / 100;
export const ratio = (a, b) => (b > 0 ? a / b : Number.NaN);
export const times = (value) => `${value.toFixed(2)}x`;
export const thousands = (value) => Math.round(value).toLocaleString('en-US');

/**
 * Runs `concurrency` workers over `count` jobs; `job(index)` is awaited. With a `deadline`
 * (a `performance.now()` time), no job starts after it. Resolves with the jobs done.
 */
export async function pool(count, concurrency, job, deadline = Infinity) {
  let next = 0;
  const worker = async () => {
    while (next < count && performance.now() < deadline) {
      const index = next;
      next += 1;
      await job(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return next;
}

/**
 * The server half of a benchmark that starts itself again with `--serve`: every request is
 * answered 200 with `body` (JSON text), idle keep-alive sockets stay open longer than any client
 * keeps them, `{ url }` is printed once it listens, and SIGTERM closes it.
 */
export function serveJson(body) {
  const length = String(Buffer.byteLength(body));
  const server = createHttpServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
    response.end(body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () =>
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`),
  );
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

export async function freePort() {
  const probe = createServer();
  await new Promise((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Starts a Node child process and resolves with its first stdout line parsed as JSON
 * (where it listens), and a `stop()` that ends it (SIGTERM, then SIGKILL after 5 s).
 */
export function startChild(args, { env, name = 'child' } = {}) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
  let stderr = '';
  child.stderr.on('data', (chunk) => void (stderr += chunk.toString('utf8')));
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    const onExit = (code, signal) =>
      reject(new Error(`bench: ${name} exited (${code ?? signal}) before it was ready\n${stderr}`));
    child.once('exit', onExit);
    lines.once('line', (line) => {
      child.off('exit', onExit);
      lines.on('line', () => undefined);
      let info;
      try {
        info = JSON.parse(line);
      } catch {
        child.kill('SIGKILL');
        reject(new Error(`bench: ${name} printed '${line}', not JSON`));
        return;
      }
      resolve({
        info,
        child,
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((done) => child.once('exit', done));
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}

/** The Descript simulator (tools/simulators/descript) in a child process: `{ url, token, stop() }`. */
export async function startDescriptSimulator({ size = 100, seed = 1, latency = 0 } = {}) {
  const main = builtPath('tools/simulators/descript/dist/main.js');
  const args = [main, '--size', String(size), '--seed', String(seed), '--latency', String(latency)];
  const { info, stop, child } = await startChild(args, {
    name: 'the Descript simulator',
  });
  return { url: info.url, token: info.token, pid: child.pid, stop };
}

/** Runs a Node child process to its end; resolves with the last stdout line as JSON. */
export function runChild(args, { env, timeoutMs = 30 * 60_000, name = 'child' } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { env: env ?? process.env, maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`bench: ${name} failed: ${error.message}\n${stderr}`));
        const last = stdout.trim().split('\n').pop() ?? '';
        try {
          resolve(JSON.parse(last));
        } catch {
          reject(new Error(`bench: ${name} printed no JSON result\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

const run = promisify(execFile);

/**
 * A redis-server of the benchmark's own: 127.0.0.1, a free port, a temporary folder, no
 * persistence. scripts/ensure-system.sh finds redis-server on PATH or installs Debian's
 * package. Resolves with `{ url, stop() }`.
 */
export async function startRedis() {
  const { stdout } = await run(
    'bash',
    ['-c', `bash "$1" >&2 && command -v redis-server`, 'ensure', join(root, 'scripts/ensure-system.sh')],
    { timeout: 15 * 60_000 },
  );
  const binary = stdout.trim().split('\n').pop();
  const dir = await mkdtemp(join(tmpdir(), 'plugboard-bench-redis-'));
  const port = await freePort();
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
    'warning',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => void (stderr += chunk.toString('utf8')));
  const url = `redis://127.0.0.1:${port}`;
  // Ready when it accepts a connection.
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bench: redis-server exited (${child.exitCode}):\n${stderr}`);
    const accepted = await new Promise((resolve) => {
      const probe = connect(port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
    });
    if (accepted) break;
    if (Date.now() - started > 15_000) {
      child.kill('SIGKILL');
      throw new Error(`bench: redis-server did not accept connections in 15 s:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A source action of one GET per run, `items.get`, for the request and window benchmarks. */
export function itemsGetAction(sdk, z) {
  const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() }).meta({ id: 'Item' });
  return sdk.defineAction({
    key: 'items.get',
    label: 'Get an item',
    direction: 'source',
    entity: Item,
    input: z.object({ id: z.string() }),
    async *read(ctx, input) {
      yield { records: [await ctx.http.get(`/items/${input.id}`)] };
    },
  });
}

/** Passes a request received by a proxy on to `target`'s host as it came, and its answer back. */
export function forwarder(target) {
  const upstream = new URL(target);
  return (incoming, answer) => {
    const options = { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url };
    const forwarded = request({ ...options, headers: incoming.headers }, (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(answer);
    });
    forwarded.on('error', () => answer.destroy());
    incoming.pipe(forwarded);
  };
}
