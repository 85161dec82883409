import { CancelledError, type LogEntry, type Page } from '@plugboard/sdk';
import { createExecutor, type ExecuteRequest } from '@plugboard/sdk/host';
import { answer, type FaultServer, startFaultServer } from '@plugboard/testing';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type IsolatedPlugin,
  type IsolationOptions,
  PluginKilledError,
  startPlugin,
  startPlugins,
} from '../src/index.js';
import { FIRST_PAGES } from '../src/protocol.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/** The forged pages a flooding plugin writes at once: more than the host ever asks for before its first page. */
const FORGED_PAGES = 20;

/**
 * Hostile plugins at run time, each in its own process: they read the environment, patch the
 * SDK and the globals they share with nobody, echo the credential into records, logs and
 * errors, hang, spin, hoard memory, exit and ignore cancellation. The host stays unharmed, the
 * other plugins keep working, no secret of the host or of another connector reaches them, and
 * every killed plugin is reported with its reason.
 */

const HOST_SECRET = 'host-secret-value-1234';
const HONEST_TOKEN = 'honest-token-5678';
const HOSTILE_TOKEN = 'hostile-token-9012';

/** A connector with a `things.list` source whose read is `read` (a generator body; `ctx` and `input` in scope). */
function source(key: string, read: string, top = ''): string {
  return `
import * as fs from 'node:fs';
import * as cp from 'node:child_process';
import { z } from 'zod';
import * as sdk from '@plugboard/sdk';
import * as host from '@plugboard/sdk/host';
const { bearerToken, defineAction, defineConnector } = sdk;
${top}
const Thing = z.object({ id: z.string(), seen: z.unknown().optional() }).meta({ id: '${key}Thing' });
const list = (key, read) => defineAction({ key, label: key, direction: 'source', entity: Thing, input: z.object({}), read });
export default defineConnector({
  key: '${key}', name: '${key}', version: '1.0.0', vendor: null, category: 'developer', status: 'beta', summary: 'A fixture.',
  auth: bearerToken(), baseUrl: 'http://127.0.0.1:9',
  actions: [
    list('things.list', async function* (ctx, input) { ${read} }),
    list('echo.list', async function* (ctx) { const body = await ctx.http.get('/echo'); yield { records: body.items }; }),
    // What this process could have caught of anyone's: its fetch spy's catch, and its environment.
    list('loot.list', async function* () { yield { records: [{ id: 'loot', seen: { spied: globalThis.spied ?? [], env: process.env } }] }; }),
  ],
});
`;
}

/** Reads the nonce off its process's own writes and the run's id off the host's messages, as a plugin can. */
const SNIFF = `import * as net from 'node:net';
  const original = net.Socket.prototype._writeGeneric;
  // Several queued writes go out together (writev): then data is a list of chunks.
  const text = (writev, data) => (writev ? data.map((entry) => String(entry.chunk)).join('') : String(data));
  net.Socket.prototype._writeGeneric = function (writev, data, ...rest) { const found = /"nonce":"([0-9a-f]+)"/.exec(text(writev, data)); if (found) globalThis.nonce = found[1]; return original.call(this, writev, data, ...rest); };
  process.stdin.on('data', (chunk) => { const found = /"type":"run","id":"([^"]+)"/.exec(String(chunk)); if (found) globalThis.runId = found[1]; });
  // The run may start inside the channel's own listener, before the one above has seen its id: wait for both.
  globalThis.stolen = async () => { while (!globalThis.runId || !globalThis.nonce) await new Promise((done) => setImmediate(done)); };`;

const attempt = `const attempt = (fn) => { try { fn(); return 'allowed'; } catch (error) { return error.code ?? error.message; } };`;

let server: FaultServer;
let folder: PluginFolder;
const saved = { credential: process.env.PLUGBOARD_CREDENTIAL, aws: process.env.AWS_SECRET_ACCESS_KEY };
const hostFetch = globalThis.fetch;

beforeAll(async () => {
  process.env.PLUGBOARD_CREDENTIAL = HOST_SECRET;
  process.env.AWS_SECRET_ACCESS_KEY = HOST_SECRET;
  // A provider that echoes the credential it was sent, as a hostile one would.
  server = await startFaultServer((request) =>
    answer({
      status: 200,
      body: { items: [{ id: 'echo', seen: String(request.headers.authorization ?? '').replace(/^Bearer /, '') }] },
    }),
  );
  folder = await npmFolder([
    {
      name: 'connector-honest',
      entry: source(
        'honest',
        `${attempt}
         const probe = new host.Redactor(['probe-secret']).redactString('a probe-secret b');
         yield { records: [{ id: 'report', seen: {
           env: process.env,
           polluted: typeof ({}).polluted,
           fetchPatched: globalThis.fetch?.name === 'spy',
           redacts: !probe.includes('probe-secret'),
           write: attempt(() => fs.writeFileSync(new URL('./written.txt', import.meta.url), 'x')),
           spawn: attempt(() => cp.execFileSync('/bin/true')),
           other: attempt(() => fs.readFileSync(new URL('../connector-patcher/index.js', import.meta.url), 'utf8')),
         } }] };`,
      ),
    },
    {
      name: 'connector-patcher',
      // On import: redaction off in its SDK, a spy on fetch, a polluted Object.prototype.
      entry: source(
        'patcher',
        `const body = await ctx.http.get('/echo');
         const echoed = body.items[0].seen;
         ctx.log.warn('the provider echoed ' + echoed, { token: echoed });
         ctx.progress({ label: 'holding ' + echoed });
         ctx.progress({ label: 'long ' + 'x'.repeat(100000) });
         yield { records: body.items, checkpoint: { token: echoed } };
         throw new sdk.ConnectorError('failed with ' + echoed, { code: 'leaky', retryable: false, platformStatus: 500 });`,
        `for (const name of ['redact', 'redactString', 'redactValues']) host.Redactor.prototype[name] = (value) => value;
         host.Redactor.prototype.containsSecretIn = () => false;
         globalThis.spied = [];
         globalThis.fetch = async function spy(...args) { globalThis.spied.push(JSON.stringify(args)); return new Response('{}'); };
         Object.defineProperty(Object.prototype, 'polluted', { value: 'yes', configurable: true });`,
      ),
    },
  ]);
});

afterAll(async () => {
  for (const [name, value] of [
    ['PLUGBOARD_CREDENTIAL', saved.credential],
    ['AWS_SECRET_ACCESS_KEY', saved.aws],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await server?.close();
  await folder?.cleanup();
});

const started: IsolatedPlugin[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((plugin) => plugin.close()));
});

async function plugin(name: string, read: string, options: IsolationOptions = {}, top = ''): Promise<IsolatedPlugin> {
  const own = await npmFolder([{ name, entry: source(name.replace('connector-', ''), read, top) }]);
  const started_ = await startPlugin({ name, from: own.dir }, { allow: ['127.0.0.0/8'], ...options });
  started.push({ ...started_, close: async () => (await started_.close(), await own.cleanup()) });
  return started_;
}

function executorFor(plugins: IsolatedPlugin[], log: LogEntry[] = []) {
  return createExecutor({
    plugins: plugins.map((one) => ({ package: one.package, runner: one.runner })),
    resolveConnection: (id) => ({ id, baseUrl: server.url }),
    resolveCredential: (id) => (id === 'conn_honest' ? HONEST_TOKEN : HOSTILE_TOKEN),
    log: (entry) => void log.push(entry),
    retry: { retries: 0 },
  });
}

async function read(run: ReturnType<typeof executorFor>, request: Omit<ExecuteRequest, 'onPage'>): Promise<Page[]> {
  const pages: Page[] = [];
  await run.execute({ ...request, onPage: (page) => void pages.push(page) });
  return pages;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected the run to fail');
    },
    (error: unknown) => error as Error,
  );
}

describe('plugins that patch what they can reach', () => {
  test('a plugin patching the SDK, fetch and Object.prototype harms neither the host nor another plugin, and its echo of the credential is taken out by the host', async () => {
    const { loaded, failed, close } = await startPlugins(folder.dir, { allow: ['127.0.0.0/8'] });
    try {
      expect(failed).toEqual([]);
      const log: LogEntry[] = [];
      const progress: unknown[] = [];
      const run = executorFor(loaded, log);

      const leaked = await failure(
        read(run, {
          connectorKey: 'patcher',
          action: 'things.list',
          connectionId: 'conn_patcher',
          onProgress: (event) => void progress.push(event),
        }).then(() => undefined),
      );
      // Its credential came back in a record, a checkpoint, a log line, a progress label and an error: the host redacted each.
      expect(leaked).toMatchObject({ code: 'leaky' });
      const seenByHost = JSON.stringify({ message: leaked.message, log, progress });
      expect(seenByHost).toContain('the provider echoed');
      expect(seenByHost).not.toContain(HOSTILE_TOKEN);
      // A label is a short excerpt, as in-process.
      const labels = progress
        .filter((event) => (event as { type?: string }).type === 'progress')
        .map((event) => (event as { label: string }).label);
      expect(labels).toHaveLength(2);
      expect(labels[1]!.length).toBeLessThan(1000);
      const pages: Page[] = [];
      await run.execute({
        connectorKey: 'patcher',
        action: 'echo.list',
        connectionId: 'conn_patcher',
        onPage: (page) => void pages.push(page),
      });
      expect(JSON.stringify(pages)).not.toContain(HOSTILE_TOKEN);

      // The host is untouched.
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
      expect(globalThis.fetch).toBe(hostFetch);

      // The honest plugin, in its own process, sees none of it and none of the host's or the other connector's secrets.
      const [report] = (
        await read(run, { connectorKey: 'honest', action: 'things.list', connectionId: 'conn_honest' })
      )[0]!.records as Array<{ seen: Record<string, unknown> }>;
      expect(report!.seen).toMatchObject({
        polluted: 'undefined',
        fetchPatched: false,
        redacts: true,
        write: 'ERR_ACCESS_DENIED',
        spawn: 'ERR_ACCESS_DENIED',
        other: 'ERR_ACCESS_DENIED',
      });
      expect(JSON.stringify(report!.seen.env)).not.toContain(HOST_SECRET);
      expect(JSON.stringify(report)).not.toContain(HOSTILE_TOKEN);
      expect(existsSync(join(folder.modules, 'connector-honest', 'written.txt'))).toBe(false);
      // The honest plugin's own echo is redacted by its own, unpatched SDK before it reaches the host.
      const honestPages = await read(run, { connectorKey: 'honest', action: 'echo.list', connectionId: 'conn_honest' });
      expect(honestPages[0]!.records).toEqual([{ id: 'echo', seen: '[REDACTED]' }]);
      // The patcher, run after the honest plugin's requests, caught none of them.
      const loot = await read(run, { connectorKey: 'patcher', action: 'loot.list', connectionId: 'conn_patcher' });
      expect(JSON.stringify(loot)).not.toContain(HONEST_TOKEN);
      expect(JSON.stringify(loot)).not.toContain(HOST_SECRET);
      // The provider saw each connector's own credential only.
      const tokens = new Set(server.requests.map((request) => request.headers.authorization));
      expect(tokens).toEqual(new Set([`Bearer ${HOSTILE_TOKEN}`, `Bearer ${HONEST_TOKEN}`]));
    } finally {
      await close();
    }
  });
});

describe('plugins that hang, spin, hoard, exit or ignore cancellation', () => {
  const list = { action: 'things.list', connectionId: 'conn_x' } as const;

  test('a run that never answers, or spins on the CPU, is killed after the idle limit', async () => {
    const hang = await plugin('connector-hang', `await new Promise(() => {});`, { idleTimeoutMs: 300 });
    const spin = await plugin('connector-spin', `while (true) {}`, { idleTimeoutMs: 300 });
    const run = executorFor([hang, spin]);
    for (const key of ['hang', 'spin']) {
      const error = await failure(read(run, { ...list, connectorKey: key }));
      expect(error).toBeInstanceOf(PluginKilledError);
      expect(error).toMatchObject({ reason: 'idle_timeout', code: 'plugin_killed' });
      expect(error.message).toMatch(/went 300 ms without a page or an answer/);
    }
  });

  test('a run that hoards memory is killed at its heap limit; one that exits ends its process; both are reported, and the plugin starts again for its next run', async () => {
    const hoard = await plugin(
      'connector-hoard',
      `const hoard = []; while (true) hoard.push(new Array(1e5).fill(Math.random()));`,
      { maxOldSpaceMb: 32 },
    );
    const quit = await plugin('connector-quit', `process.exit(0);`);
    const run = executorFor([hoard, quit]);
    expect(await failure(read(run, { ...list, connectorKey: 'hoard' }))).toMatchObject({
      reason: 'memory',
      message: expect.stringMatching(/ran out of its 32 MB heap/),
    });
    expect(await failure(read(run, { ...list, connectorKey: 'quit' }))).toMatchObject({
      reason: 'exited',
      message: expect.stringMatching(/exited \(code 0\)/),
    });
    // A fresh process runs the plugin's other action.
    expect((await read(run, { ...list, connectorKey: 'quit', action: 'echo.list' }))[0]!.records).toEqual([
      { id: 'echo', seen: '[REDACTED]' },
    ]);
  });

  test('a run that ignores cancellation is killed after the grace period; the caller gets a cancellation naming why', async () => {
    const deaf = await plugin('connector-deaf', `ctx.progress({ label: 'started' }); await new Promise(() => {});`, {
      cancelGraceMs: 200,
    });
    const controller = new AbortController();
    const error = await failure(
      read(executorFor([deaf]), {
        ...list,
        connectorKey: 'deaf',
        signal: controller.signal,
        onProgress: (event) => {
          if (event.type === 'progress') controller.abort();
        },
      }),
    );
    expect(error).toBeInstanceOf(CancelledError);
    expect(error.message).toMatch(/did not stop its run within 200 ms of being cancelled/);
  });

  test('a run that honours cancellation ends without its process being killed', async () => {
    const polite = await plugin(
      'connector-polite',
      `ctx.progress({ label: 'started' }); await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)); throw new Error('stopped');`,
      {
        cancelGraceMs: 60_000,
      },
    );
    const controller = new AbortController();
    const run = executorFor([polite]);
    const error = await failure(
      read(run, {
        ...list,
        connectorKey: 'polite',
        signal: controller.signal,
        onProgress: (event) => event.type === 'progress' && controller.abort(),
      }),
    );
    expect(error).toBeInstanceOf(CancelledError);
    expect(error).not.toBeInstanceOf(PluginKilledError);
  });

  test('a run that writes to the host itself is killed: a message without the nonce as forged, one without end at the size bound', async () => {
    const forger = await plugin(
      'connector-forger',
      `fs.writeSync(3, JSON.stringify({ type: 'done', id: '1' }) + '\\n'); await new Promise(() => {});`,
    );
    const flood = await plugin(
      'connector-flood',
      `const chunk = 'a'.repeat(1 << 16); for (;;) { try { fs.writeSync(3, chunk); } catch {} }`,
      { maxMessageMb: 2 },
    );
    const run = executorFor([forger, flood]);
    expect(await failure(read(run, { ...list, connectorKey: 'forger' }))).toMatchObject({
      reason: 'forged',
      message: expect.stringMatching(/wrote to the channel to the host itself/),
    });
    expect(await failure(read(run, { ...list, connectorKey: 'flood' }))).toMatchObject({
      reason: 'oversized',
      message: expect.stringMatching(/more than 2097152 characters/),
    });
  });

  // Written one by one, forged pages can each arrive after the host asked for the next (a loaded machine
  // pauses the plugin between writes): none is then one too many, and the host waits out its idle timeout.
  test('a plugin that steals the nonce and floods the host with pages is stopped at the pages the host asked for', async () => {
    const flood = await plugin(
      'connector-pages',
      `await globalThis.stolen();
       const line = JSON.stringify({ type: 'page', id: globalThis.runId, page: { records: [{ id: 'forged' }] }, nonce: globalThis.nonce }) + '\\n';
       // ${FORGED_PAGES} pages in one write of less than PIPE_BUF (4096 bytes), which a pipe takes whole or not at
       // all (EAGAIN: try again), so the host reads them together, before it can ask for another page.
       const burst = line.repeat(${FORGED_PAGES});
       if (burst.length >= 4096) throw new Error('the burst must fit in one atomic pipe write');
       for (let written = 0; written < burst.length; ) { try { written = fs.writeSync(3, burst); } catch {} }
       await new Promise(() => {});`,
      {},
      SNIFF,
    );
    const pages: Page[] = [];
    const error = await failure(
      executorFor([flood]).execute({ ...list, connectorKey: 'pages', onPage: (page) => void pages.push(page) }),
    );
    // All came at once: the first page past the ones the host asked for ends the plugin, and only those reach the caller.
    expect(error).toMatchObject({ reason: 'forged' });
    expect(error.message).toContain(
      `sent more pages than the host asked for (${FIRST_PAGES + 1} of ${FIRST_PAGES}); its process was killed`,
    );
    expect(pages.length).toBeLessThanOrEqual(FIRST_PAGES);
  });

  test('a page nested deeper than any walk can go, forged with a stolen nonce, ends the plugin, not the host', async () => {
    const deep = await plugin(
      'connector-deep',
      `await globalThis.stolen();
       const depth = 1000000;
       const line = '{"type":"page","id":"' + globalThis.runId + '","page":{"records":[' + '['.repeat(depth) + ']'.repeat(depth) + ']},"nonce":"' + globalThis.nonce + '"}\\n';
       for (let written = 0; written < line.length; ) { try { written += fs.writeSync(3, line.slice(written)); } catch {} }
       await new Promise(() => {});`,
      {},
      SNIFF,
    );
    const error = await failure(read(executorFor([deep]), { ...list, connectorKey: 'deep' }));
    expect(error).toMatchObject({
      reason: 'forged',
      message: expect.stringMatching(/sent a message the host could not take/),
    });
  });

  test('a plugin spinning on the CPU ends with its host, even a host killed with SIGKILL', async (context) => {
    // The kernel's parent-death signal, set by util-linux's setpriv: Linux only.
    if (process.platform !== 'linux' || !['/usr/bin/setpriv', '/bin/setpriv'].some((path) => existsSync(path)))
      context.skip();
    const own = await npmFolder([
      { name: 'connector-orphan', entry: source('orphan', `await ctx.http.get('/echo'); while (true) {}`) },
    ]);
    const runtime = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const sdk = fileURLToPath(new URL('../node_modules/@plugboard/sdk/dist/host.js', import.meta.url));
    const script = `
      const { startPlugin } = await import(${JSON.stringify(runtime)});
      const { createExecutor } = await import(${JSON.stringify(sdk)});
      const plugin = await startPlugin({ name: 'connector-orphan', from: ${JSON.stringify(own.dir)} });
      const executor = createExecutor({ plugins: [{ package: plugin.package, runner: plugin.runner }], resolveConnection: (id) => ({ id, baseUrl: ${JSON.stringify(server.url)} }), resolveCredential: () => 'token' });
      await executor.execute({ connectorKey: 'orphan', action: 'things.list', connectionId: 'c', onPage: () => undefined });`;
    const before = server.count;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    try {
      // The plugin spins once its request arrived.
      while (server.count === before) await new Promise((resolve) => setTimeout(resolve, 10));
      const children = readFileSync(`/proc/${host.pid}/task/${host.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .map(Number);
      expect(children).toHaveLength(1);
      host.kill('SIGKILL');
      const gone = () =>
        !existsSync(`/proc/${children[0]}`) || /^State:\s+Z/m.test(readFileSync(`/proc/${children[0]}/status`, 'utf8'));
      while (!gone()) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      host.kill('SIGKILL');
      await own.cleanup();
    }
  }, 30_000);

  test('a plugin that rewrites its prepared run to another connection is ended before anything runs or is claimed', async () => {
    // The digest an approver reviews, the idempotency key's record and the checkpoint's stream are made of the connection.
    const rewrite = `import * as net from 'node:net';
      const original = net.Socket.prototype._writeGeneric;
      const lie = (chunk) => String(chunk).replace('"connection":{"id":"conn_x"', '"connection":{"id":"conn_victim"');
      // Several queued writes go out together (writev): then data is a list of chunks.
      net.Socket.prototype._writeGeneric = function (writev, data, ...rest) { return original.call(this, writev, writev ? data.map((entry) => ({ ...entry, chunk: lie(entry.chunk) })) : lie(data), ...rest); };`;
    const liar = await plugin('connector-liar', `yield { records: [{ id: 'ran' }] };`, {}, rewrite);
    const before = server.count;
    const error = await failure(read(executorFor([liar]), { ...list, connectorKey: 'liar' }));
    expect(error).toMatchObject({
      reason: 'forged',
      message: expect.stringMatching(/prepared a run other than the one the host asked for/),
    });
    expect(server.count).toBe(before);
  });
});
