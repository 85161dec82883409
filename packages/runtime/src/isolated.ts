import {
  type ApprovalBinding,
  type AuthScheme,
  type ConnectionCredential,
  type PreparedAction,
  type ProgressEvent,
  CancelledError,
  compareText,
  ConnectionConfigError,
  type ConnectionInput,
  ConnectorError,
  type Environment,
  excerpt,
  type LogEntry,
  type LogSink,
  type OAuth2Credential,
  type Page,
  type RunSettings,
  type TokenSet,
} from '@plugboard/sdk';
import {
  approvalDigest,
  connectionTokenSource,
  type ConnectorRunner,
  credentialSecrets,
  optionsKey,
  passedGate,
  Redactor,
  stderrSink,
  systemClock,
  type TokenSource,
} from '@plugboard/sdk/host';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  errorText,
  type FailedPlugin,
  folderPackages,
  hostSdkVersion,
  type PackageLocation,
  type PluginSpec,
  packageDir,
  uniqueKeys,
} from './load.js';
import { checkSdkRange, PluginLoadError, type PluginManifest, readManifest } from './manifest.js';
import {
  type ChildMessage,
  FIRST_PAGES,
  type HostMessage,
  MAX_RUN_NOTES,
  MAX_TOKEN_ASKS,
  type SharedRedis,
  type StartMessage,
  TOKEN_ASK_WINDOW_MS,
  type WirePlan,
} from './protocol.js';
import { jsonLines } from './json-lines.js';
import { fromWire, toWire } from './wire.js';

/**
 * Plugins in processes of their own: one per package, reused across runs, started with an
 * empty environment under Node's permission model (reading only the package, the dependencies
 * it imports and the SDK; no writes, child processes, workers or addons) and a heap limit. The
 * host keeps the gate, the idempotency claim, the acknowledgement and the checkpoint commit; the
 * plugin's process validates, runs the action and its HTTP pipeline, and sends pages, progress,
 * logs and failures back on a pipe of their own, where the host redacts them again. What the
 * plugin prints is its log, never part of an answer.
 */

export type KillReason =
  | 'load_timeout'
  | 'idle_timeout'
  | 'memory'
  | 'cancel_ignored'
  | 'exited'
  | 'forged'
  | 'oversized'
  | 'closed';

/** The token sets a run asked for: the latest few given (a 401 names one), and when the last asks came. */
interface TokenAsks {
  given: Map<number, TokenSet | undefined>;
  /** The host's clock at each of the last `MAX_TOKEN_ASKS` asks. */
  times: number[];
  /** The number of the latest ask: each is above the one before. */
  last?: number;
}

/** Sets a run's asks keep to answer a 401 on: a plugin reports the one it holds, the latest. */
const KEPT_TOKEN_SETS = 8;

/** A plugin's process the host ended, or that ended on its own; the runs it held fail with this. */
export class PluginKilledError extends ConnectorError {
  constructor(
    readonly plugin: string,
    readonly reason: KillReason,
    message: string,
    readonly log: string,
  ) {
    super('plugin_killed', `${plugin}: ${message}`, false, 500);
  }
}

export interface IsolationLimits {
  /** Time the plugin has to import and answer; default 10 s. */
  loadTimeoutMs?: number;
  /** The longest a run or a preparation may go without a page or an answer from the plugin; default 5 minutes. */
  idleTimeoutMs?: number;
  /** How long a cancelled run has to end before its process is killed; default 2 s. */
  cancelGraceMs?: number;
  /** The child's V8 heap limit (`--max-old-space-size`); default 256 MB. */
  maxOldSpaceMb?: number;
  /** The largest message (a page, say) the host reads from the plugin, in millions of characters; default 64. */
  maxMessageMb?: number;
}

export interface IsolationOptions extends IsolationLimits {
  /** The host's SDK version the manifests' ranges are checked against; default: the installed `@plugboard/sdk`'s. */
  sdkVersion?: string;
  /** Address ranges the plugins' requests may reach whatever their class, as `createTransport({ network: { allow } })`. */
  allow?: string[];
  /**
   * Shares every plugin's budgets through Redis, as `createTransport({ redis })`: a URL, or the URL
   * with a key prefix. The plugins' processes connect to it themselves, so give them a Redis (or an
   * ACL user) that holds budgets only.
   */
  redis?: SharedRedis;
}

export interface DescribedAction {
  key: string;
  label: string;
  direction: string;
}

export interface PluginDescription {
  key: string;
  name: string;
  /** The connector's own version. */
  connectorVersion: string;
  /** The package's name and version, from its `package.json`. */
  package: string;
  version: string;
  /** The package's folder (real path). */
  dir: string;
  actions: DescribedAction[];
}

/** A plugin running in a process of its own; give it to `createExecutor({ plugins })`. */
export interface IsolatedPlugin extends PluginDescription {
  runner: ConnectorRunner;
  /** Ends the plugin's process; a later run starts it again. */
  close(): Promise<void>;
}

export interface IsolatedPlugins {
  loaded: IsolatedPlugin[];
  failed: Array<FailedPlugin & { killed?: KillReason }>;
  /** Ends every plugin's process. */
  close(): Promise<void>;
}

const LOG_LIMIT = 64 * 1024;
/** The OAuth2 schemes of a plugin the host keeps; a connector declares a few. */
const MAX_SCHEMES = 16;
const NO_SECRETS = new Redactor();
const CONNECTOR_PEERS = ['@plugboard/sdk', 'zod'];
const DEFAULTS = {
  loadTimeoutMs: 10_000,
  idleTimeoutMs: 300_000,
  cancelGraceMs: 2_000,
  maxOldSpaceMb: 256,
  maxMessageMb: 64,
};

/** The folder of the package whose `package.json` is found from `from` by Node's lookup. */
function findPackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', ...name.split('/'));
    if (statSync(join(candidate, 'package.json'), { throwIfNoEntry: false })?.isFile()) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The folders a package imports from: itself and its dependencies, recursively, each as
 * found (a link) and as its real path, since Node checks reads at both.
 */
export function dependencyFolders(dir: string, seen = new Set<string>(), implied: string[] = []): Set<string> {
  const real = realpathSync(dir);
  const known = seen.has(real);
  seen.add(dir);
  if (known) return seen;
  seen.add(real);
  let pkg: Record<string, Record<string, string> | undefined>;
  try {
    pkg = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    return seen;
  }
  const names = new Set([
    ...implied,
    ...[pkg.dependencies, pkg.peerDependencies, pkg.optionalDependencies].flatMap((deps) => Object.keys(deps ?? {})),
  ]);
  for (const name of names) {
    const found = findPackage(name, real) ?? findPackage(name, dir);
    if (found) dependencyFolders(found, seen);
  }
  return seen;
}

// On Linux the kernel ends a plugin's process when its host ends, however the host ended: a plugin
// spinning on the CPU would never read the end of its stdin. `setpriv` (util-linux) sets that up.
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

const runtimeDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const childScript = join(runtimeDir, 'dist', 'plugin-process.js');
const sdkDir = dirname(createRequire(import.meta.url).resolve('@plugboard/sdk/package.json'));

let hostReadable: Set<string> | undefined;

/** What every plugin's process reads besides its own package: the runtime's child script and the SDK, with their dependencies. */
function hostFolders(): Set<string> {
  hostReadable ??= new Set([...dependencyFolders(runtimeDir), ...dependencyFolders(sdkDir)]);
  return hostReadable;
}

/** A prepared run whose action's code lives in a plugin's process; the digest is the host's own. */
class RemotePlan implements PreparedAction {
  private digest: ApprovalBinding | undefined;
  readonly connector: { key: string; version: string };
  readonly action: WirePlan['action'];
  readonly input: unknown;
  readonly connection: { id: string };
  /** The id of the auth scheme the plugin resolved the connection to. */
  readonly scheme: string | undefined;
  readonly environment: WirePlan['environment'];
  readonly checkpoint: unknown;
  readonly checkpointVersion: number;
  readonly needsApproval: boolean;

  readonly id: string;

  constructor(
    readonly owner: PluginProcess,
    plan: WirePlan,
  ) {
    this.id = plan.id;
    this.connector = { key: owner.description.key, version: owner.description.connectorVersion };
    // The plugin's word on its provider's deduplication bears only on its own keys; anything but a name is none.
    const { idempotencyHeader, ...action } = plan.action;
    this.action = typeof idempotencyHeader === 'string' ? { ...action, idempotencyHeader } : action;
    this.input = plan.input;
    this.connection = { id: plan.connection.id };
    this.scheme = typeof plan.connection.scheme === 'string' ? plan.connection.scheme : undefined;
    this.environment = plan.environment;
    this.checkpoint = plan.checkpoint;
    // Anything but a version number is version 1: a plugin's word bears only on its own checkpoints.
    const version = plan.checkpointVersion;
    this.checkpointVersion = Number.isSafeInteger(version) && version! >= 1 ? version! : 1;
    this.needsApproval = plan.needsApproval === true;
  }

  get binding(): ApprovalBinding {
    this.digest ??= approvalDigest({
      connector: this.connector,
      action: this.action.key,
      connectionId: this.connection.id,
      environment: this.environment,
      input: this.input,
    });
    return this.digest;
  }
}

interface Pending {
  onMessage(message: ChildMessage): void;
  onKilled(error: PluginKilledError): void;
  /** Armed while the host waits for the plugin: fires after `idleTimeoutMs` without a word. */
  idle?: NodeJS.Timeout;
}

/** One plugin package's process, started when first needed and again after it ended. */
class PluginProcess {
  description!: PluginDescription;
  private child: ChildProcess | undefined;
  private starting: Promise<void> | undefined;
  private nonce = '';
  private log = '';
  private killed: { reason: KillReason; message: string } | undefined;
  private readonly pending = new Map<string, Pending>();
  private nextId = 0;
  private readonly limits: Required<IsolationLimits>;
  private readable: Set<string> | undefined;
  /** The connector's OAuth2 schemes by id, as it described them when it loaded. */
  private oauth2 = new Map<string, AuthScheme>();

  constructor(
    private readonly manifest: PluginManifest,
    private readonly dir: string,
    private readonly sdkRoots: string[],
    private readonly options: IsolationOptions,
  ) {
    this.limits = {
      ...DEFAULTS,
      ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
    } as Required<IsolationLimits>;
  }

  /** Starts the process (if it is not running) and waits for its description. */
  ensure(): Promise<void> {
    this.starting ??= this.spawn().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private spawn(): Promise<void> {
    // A connector imports the SDK and zod whether or not its package.json says so. Found once, for every start.
    this.readable ??= new Set([...dependencyFolders(this.dir, new Set(), CONNECTOR_PEERS), ...hostFolders()]);
    const readable = this.readable;
    const args = [
      '--permission',
      ...[...readable].map((path) => `--allow-fs-read=${path}`),
      `--max-old-space-size=${this.limits.maxOldSpaceMb}`,
      childScript,
    ];
    // stdin carries the host's messages, descriptor 3 the process's answers; stdout and stderr are the plugin's log.
    const command = SETPRIV
      ? [SETPRIV, '--pdeathsig', 'KILL', '--', process.execPath, ...args]
      : [process.execPath, ...args];
    const child = spawn(command[0]!, command.slice(1), { env: {}, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.killed = undefined;
    this.log = '';
    // The plugin can write to descriptor 3 itself: only a message quoting this nonce,
    // which the child holds before the plugin's code runs, is the child's.
    this.nonce = randomBytes(16).toString('hex');
    const start: StartMessage = {
      type: 'start',
      nonce: this.nonce,
      entryPath: this.manifest.entryPath,
      entry: this.manifest.connector,
      dir: this.dir,
      sdkRoots: this.sdkRoots,
      ...(this.options.allow ? { allow: this.options.allow } : {}),
      ...(this.options.redis ? { redis: this.options.redis } : {}),
    };
    // A process that died mid-write is reported by its exit, not by a pipe error.
    for (const stream of child.stdio) stream?.on('error', () => undefined);
    this.write(child, start);
    const capture = (chunk: Buffer) => {
      if (this.log.length < LOG_LIMIT) this.log += chunk.toString('utf8').slice(0, LOG_LIMIT - this.log.length);
    };
    child.stdout?.on('data', capture);
    child.stderr?.on('data', capture);

    return new Promise<void>((resolveStart, rejectStart) => {
      let described = false;
      const timer = setTimeout(
        () => this.kill('load_timeout', `did not load within ${this.limits.loadTimeoutMs} ms; its process was killed`),
        this.limits.loadTimeoutMs,
      );
      const answers = child.stdio[3] as Socket;
      answers.on(
        'data',
        jsonLines(
          this.limits.maxMessageMb * 1024 * 1024,
          (raw) => onMessage(raw as (ChildMessage & { nonce?: unknown }) | null),
          (what) => this.kill('oversized', `sent ${what} to the host; its process was killed`),
        ),
      );
      // Whatever the plugin's process sends is checked and redacted here; a message the host cannot take ends it.
      const onMessage = (message: (ChildMessage & { nonce?: unknown }) | null) => {
        try {
          take(message);
        } catch (error) {
          this.kill(
            'forged',
            `sent a message the host could not take (${excerpt(errorText(error))}); its process was killed`,
          );
        }
      };
      const take = (message: (ChildMessage & { nonce?: unknown }) | null) => {
        if (message?.nonce !== this.nonce) {
          this.kill(
            'forged',
            'it wrote to the channel to the host itself (a message not from its Plugboard process); its process was killed',
          );
          return;
        }
        if (!described) {
          described = true;
          clearTimeout(timer);
          if (message.type === 'described') {
            const { oauth2, ...connector } = message.connector;
            this.oauth2 = schemesById(oauth2);
            this.description = {
              ...connector,
              package: this.manifest.package,
              version: this.manifest.version,
              dir: this.dir,
            };
            this.idleWhenQuiet();
            resolveStart();
          } else {
            this.kill('closed', 'not loaded');
            rejectStart(
              new PluginLoadError(
                this.manifest.package,
                message.type === 'failed'
                  ? excerpt(String(message.reason), 2000)
                  : 'it answered something other than its description',
              ),
            );
          }
          return;
        }
        if ('id' in message) this.pending.get(message.id)?.onMessage(message);
      };
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const memory = /heap out of memory|Reached heap limit/i.test(this.log);
        const ended =
          this.killed ??
          (memory
            ? {
                reason: 'memory' as const,
                message: `ran out of its ${this.limits.maxOldSpaceMb} MB heap; its process ended`,
              }
            : { reason: 'exited' as const, message: `its process exited (${signal ?? `code ${code}`})` });
        if (this.child === child) {
          this.child = undefined;
          this.starting = undefined;
        }
        const error = new PluginKilledError(
          this.manifest.package,
          ended.reason,
          described ? ended.message : ended.message.replace('its process', 'while loading: its process'),
          this.log,
        );
        if (!described)
          rejectStart(ended.reason === 'closed' ? new PluginLoadError(this.manifest.package, 'not loaded') : error);
        for (const pending of [...this.pending.values()]) pending.onKilled(error);
        this.pending.clear();
      });
    });
  }

  private write(child: ChildProcess, message: StartMessage | HostMessage): void {
    if (child.stdin?.writable) child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the process; what it held fails with the reason. */
  kill(reason: KillReason, message: string): void {
    if (!this.child) return;
    this.killed ??= { reason, message };
    this.child.kill('SIGKILL');
  }

  /** With nothing asked of it, the plugin's process does not keep the host alive. */
  private idleWhenQuiet(): void {
    const child = this.child;
    if (!child) return;
    const quiet = this.pending.size === 0;
    for (const handle of [child, ...child.stdio]) {
      const target = handle as { ref?: () => void; unref?: () => void } | null | undefined;
      if (quiet) target?.unref?.();
      else target?.ref?.();
    }
  }

  /** Sends a message for a new exchange and registers its handler; the idle timer runs until it ends. */
  open(
    build: (id: string) => HostMessage,
    pending: Omit<Pending, 'idle'>,
  ): { id: string; send(message: HostMessage): void; touch(): void; pause(): void; end(): void } {
    const id = String((this.nextId += 1));
    const entry: Pending = { ...pending };
    const limit = this.limits.idleTimeoutMs;
    // One timer per exchange, not one per message: it looks at the time of the latest word when it fires.
    let last = performance.now();
    let paused = false;
    const check = () => {
      const quiet = performance.now() - last;
      if (paused) entry.idle = undefined;
      else if (quiet >= limit)
        this.kill('idle_timeout', `went ${limit} ms without a page or an answer; its process was killed`);
      else entry.idle = setTimeout(check, limit - quiet);
    };
    const touch = () => {
      last = performance.now();
      paused = false;
      entry.idle ??= setTimeout(check, limit);
    };
    // While the host itself works on a page, the plugin waits for it: no idle time is counted.
    const pause = () => {
      paused = true;
    };
    const end = () => {
      if (entry.idle) clearTimeout(entry.idle);
      entry.idle = undefined;
      this.pending.delete(id);
      this.idleWhenQuiet();
    };
    this.pending.set(id, entry);
    this.idleWhenQuiet();
    touch();
    const send = (message: HostMessage) => {
      if (this.child) this.write(this.child, message);
    };
    send(build(id));
    return { id, send, touch, pause, end };
  }

  /** One question, one answer: a preparation or a resumption. Neither holds a secret: the plugin has none to echo yet. */
  async ask(build: (id: string) => HostMessage): Promise<WirePlan> {
    await this.ensure();
    return new Promise<WirePlan>((resolveAnswer, reject) => {
      const exchange = this.open(build, {
        onMessage: (message) => {
          exchange.end();
          if (message.type === 'prepared') resolveAnswer(message.plan);
          else if (message.type === 'error') reject(fromWire(message.error, NO_SECRETS, this.manifest.package));
          else
            reject(
              new PluginKilledError(
                this.manifest.package,
                'forged',
                `answered a preparation with '${String(message.type)}'`,
                '',
              ),
            );
        },
        onKilled: (error) => {
          exchange.end();
          reject(error);
        },
      });
    });
  }

  /** Runs a prepared run in the plugin's process, one page at a time as the caller asks for them. */
  async *run(plan: RemotePlan, settings: RunSettings): AsyncGenerator<Page> {
    const { key } = this.description;
    const subject = `${key} ${plan.action.key}`;
    const credential = await settings.credential?.();
    if (!credential)
      throw new ConnectionConfigError(
        `connector '${key}': the connection has no credential; the host's secret resolver returned none`,
      );
    // The host's own secrets stay here: the plugin's process gets this run's credential only.
    const redactor = new Redactor(settings.secrets);
    for (const part of credentialSecrets(credential)) redactor.add(part);
    const sink: LogSink = settings.log ?? stderrSink;
    await this.ensure();
    const signal = settings.signal;
    signal?.throwIfAborted();
    const clock = settings.clock ?? systemClock;
    const tokens = this.tokensOf(plan, credential, settings, redactor, sink);
    const asks: TokenAsks = { given: new Map(), times: [] };

    const queue: Array<{ page: Page } | { error: Error } | { done: true }> = [];
    let wake: (() => void) | undefined;
    const push = (item: (typeof queue)[number]) => {
      queue.push(item);
      wake?.();
    };
    let finished = false;
    let received = 0;
    let allowed = FIRST_PAGES;
    let notes = 0;
    const exchange = this.open(
      (id) => ({
        type: 'run',
        id,
        plan: plan.id,
        credential: tokens ? accessPart(credential as OAuth2Credential) : credential,
        ...(tokens ? { hostTokens: true as const } : {}),
        ...(settings.approval ? { approval: settings.approval } : {}),
        now: new Date(clock.now()).toISOString(),
        logLevel: settings.logLevel ?? (settings.log ? 'info' : 'warn'),
        ...(settings.retry ? { retry: settings.retry } : {}),
        ...(settings.idempotencyKey === undefined ? {} : { idempotencyKey: settings.idempotencyKey }),
      }),
      {
        onMessage: (message) => {
          exchange.touch();
          switch (message.type) {
            case 'page':
              // Its Plugboard process sends only the pages the host asked for: more means the plugin wrote them.
              received += 1;
              if (received > allowed)
                this.kill(
                  'forged',
                  `sent more pages than the host asked for (${received} of ${allowed}); its process was killed`,
                );
              else push({ page: safePage(message.page, redactor) });
              break;
            case 'progress':
            case 'log':
              notes += 1;
              if (notes > MAX_RUN_NOTES) {
                if (notes === MAX_RUN_NOTES + 1)
                  sink({
                    level: 'warn',
                    message: `${subject}: more than ${MAX_RUN_NOTES} log entries and progress updates; the rest of this run's are dropped`,
                    time: new Date(clock.now()).toISOString(),
                    connector: key,
                    action: plan.action.key,
                  });
              } else if (message.type === 'log')
                sink({ ...(redactor.redact(message.entry) as LogEntry), connector: key, action: plan.action.key });
              else settings.onProgress?.(progressOf(message.event, redactor, key, plan.action.key, clock.now()));
              break;
            case 'tokens':
              this.answerAsk(message, tokens, asks, exchange, redactor, clock.now());
              break;
            case 'done':
              push({ done: true });
              break;
            case 'error':
              push({ error: fromWire(message.error, redactor, this.manifest.package) });
              break;
            default:
              push({
                error: new PluginKilledError(
                  this.manifest.package,
                  'forged',
                  `sent '${String(message.type)}' during a run`,
                  '',
                ),
              });
          }
        },
        onKilled: (error) =>
          push({
            error: cancelRequested ? new CancelledError(`${subject}: the run was cancelled; ${error.message}`) : error,
          }),
      },
    );
    let cancelRequested = false;
    let grace: NodeJS.Timeout | undefined;
    const cancel = () => {
      cancelRequested = true;
      exchange.send({ type: 'cancel', id: exchange.id });
      grace = setTimeout(
        () =>
          this.kill(
            'cancel_ignored',
            `did not stop its run within ${this.limits.cancelGraceMs} ms of being cancelled; its process was killed`,
          ),
        this.limits.cancelGraceMs,
      );
    };
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolveWait) => (wake = resolveWait));
        const item = queue.shift()!;
        if ('done' in item) {
          finished = true;
          return;
        }
        if ('error' in item) {
          finished = true;
          throw item.error;
        }
        exchange.pause();
        yield item.page;
        exchange.touch();
        allowed += 1;
        exchange.send({ type: 'pull', id: exchange.id });
      }
    } finally {
      signal?.removeEventListener('abort', cancel);
      if (grace) clearTimeout(grace);
      // A caller that stopped early (a destination's one page taken) leaves nothing running.
      if (!finished) exchange.send({ type: 'cancel', id: exchange.id });
      exchange.end();
    }
  }

  /**
   * The token source of a run on an OAuth2 credential: the host's lifecycle on the host's
   * transport, for the scheme the plugin declared at load. Undefined for any other credential.
   */
  private tokensOf(
    plan: RemotePlan,
    credential: ConnectionCredential,
    settings: RunSettings,
    redactor: Redactor,
    log: LogSink,
  ): TokenSource | undefined {
    if (!isOAuth2(credential)) return undefined;
    const scheme = plan.scheme === undefined ? undefined : this.oauth2.get(plan.scheme);
    if (!scheme)
      throw new ConnectionConfigError(
        `connector '${this.description.key}': the credential is an OAuth2 one, but the connection's auth scheme '${excerpt(String(plan.scheme))}' is not an OAuth2 scheme of the connector; nothing was sent`,
      );
    return connectionTokenSource({
      connector: this.description.key,
      scheme,
      connectionId: plan.connection.id,
      environment: plan.environment,
      credential,
      redactor,
      log,
      ...(settings.transport ? { transport: settings.transport } : {}),
      ...(settings.logLevel ? { logLevel: settings.logLevel } : {}),
      ...(settings.clock ? { clock: settings.clock } : {}),
    });
  }

  /**
   * A run's ask for a token set, answered to that run only: its current set, or after a 401 on the
   * set of an earlier ask, a newer one. A run without the host's tokens, an ask past the bound, or a
   * refusal of a set the host never gave it, is the plugin's own doing: its process is killed.
   */
  private answerAsk(
    message: Extract<ChildMessage, { type: 'tokens' }>,
    tokens: TokenSource | undefined,
    asks: TokenAsks,
    exchange: { id: string; send(message: HostMessage): void },
    redactor: Redactor,
    now: number,
  ): void {
    const { ask, refused } = message;
    const { given, times } = asks;
    const used = refused === undefined ? undefined : given.get(refused);
    // The ask `MAX_TOKEN_ASKS` back: a plugin asking at the pace its tokens expire is far from it.
    const oldest = times.length < MAX_TOKEN_ASKS ? undefined : times[times.length - MAX_TOKEN_ASKS];
    const problem = !tokens
      ? 'asked for token sets on a run whose credential has none'
      : oldest !== undefined && now - oldest < TOKEN_ASK_WINDOW_MS
        ? `asked for more than ${MAX_TOKEN_ASKS} token sets within ${TOKEN_ASK_WINDOW_MS / 1000} s`
        : !Number.isSafeInteger(ask) || ask <= (asks.last ?? 0)
          ? 'asked for token sets out of turn'
          : refused !== undefined && !used
            ? 'reported a refusal of a token set it was never given'
            : undefined;
    if (problem) {
      this.kill('forged', `${problem}; its process was killed`);
      return;
    }
    // Counted at once; the set is held once given. Only the latest sets can be reported refused.
    asks.last = ask;
    times.push(now);
    if (times.length > MAX_TOKEN_ASKS) times.shift();
    given.set(ask, undefined);
    for (const kept of given.keys()) if (given.size > KEPT_TOKEN_SETS) given.delete(kept);
    (used ? tokens!.refreshAfter401(used) : tokens!.current()).then(
      (set) => {
        // A set another process wrote was never this run's: what the plugin echoes of it is hidden too.
        redactor.addRecent(set.accessToken);
        redactor.addRecent(set.refreshToken);
        if (given.has(ask)) given.set(ask, set);
        exchange.send({ type: 'tokens', id: exchange.id, ask, tokens: accessTokenPart(set) });
      },
      (error: unknown) => {
        const wire = toWire(error);
        exchange.send({
          type: 'tokens',
          id: exchange.id,
          ask,
          error: { ...wire, message: redactor.redactString(wire.message) },
        });
      },
    );
  }

  runner(): ConnectorRunner {
    const { key, name, connectorVersion } = this.description;
    const own = (prepared: PreparedAction): RemotePlan => {
      if (!(prepared instanceof RemotePlan) || prepared.owner !== this)
        throw new TypeError(`${key}: a runner takes only the runs it prepared itself`);
      return prepared;
    };
    // An action's run, or the listing of one of its fields' options (which runs under its own key).
    const prepare = async (
      action: string,
      field: string | undefined,
      input: unknown,
      options: { connection?: ConnectionInput; environment?: Environment },
    ): Promise<RemotePlan> => {
      const plan = await this.ask((id) => ({
        type: 'prepare',
        id,
        action,
        ...(field === undefined ? {} : { field }),
        input,
        ...(options.connection ? { connection: options.connection } : {}),
        ...(options.environment ? { environment: options.environment } : {}),
      }));
      return this.planFrom(plan, {
        action: field === undefined ? action : optionsKey(action, field),
        connectionId: options.connection?.id ?? 'default',
        environment: options.environment ?? 'sandbox',
      });
    };
    return {
      key,
      name,
      version: connectorVersion,
      prepare: (action, options) => prepare(action, undefined, options.input, options),
      prepareOptions: (action, field, options) => prepare(action, field, options.query, options),
      resume: async (prepared, checkpoint, version) => {
        const before = own(prepared);
        const plan = await this.ask((id) => ({
          type: 'resume',
          id,
          plan: before.id,
          checkpoint,
          ...(version === undefined ? {} : { version }),
        }));
        return this.planFrom(plan, {
          action: before.action.key,
          connectionId: before.connection.id,
          environment: before.environment,
        });
      },
      run: (prepared, settings) => {
        const plan = own(prepared);
        if (!passedGate(plan))
          throw new TypeError(
            `${key} ${plan.action.key}: a run is handed to a plugin only after the approval gate (passGate)`,
          );
        return this.run(plan, settings);
      },
    };
  }

  /**
   * The plugin's prepared run, held to what the host asked for: the digest an approver sees and the
   * idempotency key and checkpoint stream are made of its action, connection and environment.
   */
  private planFrom(plan: WirePlan, asked: { action: string; connectionId: string; environment: string }): RemotePlan {
    const kept =
      plan.action?.key === asked.action &&
      plan.connection?.id === asked.connectionId &&
      plan.environment === asked.environment;
    if (
      !kept ||
      typeof plan.id !== 'string' ||
      (plan.action.direction !== 'source' && plan.action.direction !== 'destination')
    ) {
      this.kill('forged', 'prepared a run other than the one the host asked for; its process was killed');
      throw new PluginKilledError(
        this.manifest.package,
        'forged',
        'prepared a run other than the one the host asked for; its process was killed',
        this.log,
      );
    }
    return new RemotePlan(this, plan);
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    // An idle plugin's process does not hold the host open; its ending must, until it is over.
    child.ref();
    this.kill('closed', 'the host closed it');
    await exited;
  }
}

/** A credential of an OAuth2 scheme: by shape, since the scheme is the plugin's word. */
function isOAuth2(credential: ConnectionCredential): credential is OAuth2Credential {
  return typeof credential === 'object' && credential !== null && 'clientId' in credential;
}

/** What sending needs of an OAuth2 credential: the client id and the access token part, never a refresh token or a client secret. */
function accessPart({ clientId, tokens }: OAuth2Credential): OAuth2Credential {
  return tokens ? { clientId, tokens: accessTokenPart(tokens) } : { clientId };
}

/** A token set without its refresh token, and without the parts it does not have. */
function accessTokenPart(tokens: TokenSet): TokenSet {
  const { accessToken, expiresAt, tokenType, scope } = tokens;
  return {
    accessToken,
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(tokenType === undefined ? {} : { tokenType }),
    ...(scope === undefined ? {} : { scope }),
  };
}

/** The OAuth2 schemes a plugin described, by id: plain data, each checked again when a run uses it. */
function schemesById(described: unknown): Map<string, AuthScheme> {
  const schemes = new Map<string, AuthScheme>();
  if (!Array.isArray(described)) return schemes;
  for (const scheme of described.slice(0, MAX_SCHEMES))
    if (typeof scheme === 'object' && scheme !== null && typeof (scheme as AuthScheme).id === 'string')
      schemes.set((scheme as AuthScheme).id, scheme as AuthScheme);
  return schemes;
}

/** A progress update from the plugin as the caller gets it in-process: redacted, its label a short excerpt, the host's time. */
function progressOf(event: unknown, redactor: Redactor, connector: string, action: string, now: number): ProgressEvent {
  const safe = redactor.redact(typeof event === 'object' && event !== null ? event : {}) as ProgressEvent;
  return {
    ...safe,
    ...(typeof safe.label === 'string' ? { label: excerpt(safe.label) } : {}),
    connector,
    action,
    time: new Date(now).toISOString(),
  };
}

/** A page from the plugin: its records an array, a credential echoed anywhere in it taken out. */
function safePage(page: unknown, redactor: Redactor): Page {
  const records = (page as { records?: unknown } | null)?.records;
  if (!Array.isArray(records)) throw new TypeError('a page from the plugin has no records array');
  const checkpoint = (page as { checkpoint?: unknown }).checkpoint;
  const clean = redactor.containsSecretIn(records) ? records.map((record) => redactor.redactValues(record)) : records;
  return checkpoint === undefined
    ? { records: clean }
    : { records: clean, checkpoint: redactor.redactValues(checkpoint) };
}

async function pluginProcess(
  { dir, label, sdkRoots }: PackageLocation,
  options: IsolationOptions,
): Promise<PluginProcess> {
  const manifest = await readManifest(dir, label);
  checkSdkRange(manifest, options.sdkVersion ?? hostSdkVersion());
  const plugin = new PluginProcess(manifest, dir, sdkRoots, options);
  await plugin.ensure();
  return plugin;
}

function isolated(plugin: PluginProcess): IsolatedPlugin {
  return { ...plugin.description, runner: plugin.runner(), close: () => plugin.close() };
}

/** Starts one plugin package in a process of its own; throws `PluginLoadError` or `PluginKilledError`. */
export async function startPlugin(spec: PluginSpec, options: IsolationOptions = {}): Promise<IsolatedPlugin> {
  return isolated(await pluginProcess(packageDir(spec), options));
}

/**
 * Starts every plugin of a plugin folder, each in a process of its own; a failing one is
 * reported and the others start. Two packages claiming one key are both refused, as
 * `loadPlugins` does.
 */
export async function startPlugins(pluginDir: string, options: IsolationOptions = {}): Promise<IsolatedPlugins> {
  const failed: Array<FailedPlugin & { killed?: KillReason }> = [];
  const claims = new Map<string, IsolatedPlugin[]>();
  await Promise.all(
    (await folderPackages(pluginDir)).map(async ({ name, dir, location }) => {
      try {
        const plugin = isolated(await pluginProcess(location(), options));
        claims.set(plugin.key, [...(claims.get(plugin.key) ?? []), plugin]);
      } catch (error) {
        failed.push({
          package: name,
          reason: error instanceof PluginLoadError ? error.reason : (error as Error).message,
          dir,
          ...(error instanceof PluginKilledError ? { killed: error.reason } : {}),
        });
      }
    }),
  );
  const loaded = uniqueKeys(claims, failed).sort((a, b) => compareText(a.package, b.package));
  const refused = [...claims.values()].flat().filter((plugin) => !loaded.includes(plugin));
  await Promise.all(refused.map((plugin) => plugin.close()));
  return {
    loaded,
    failed: failed.sort((a, b) => compareText(a.package, b.package)),
    close: async () => void (await Promise.all(loaded.map((plugin) => plugin.close()))),
  };
}

function description(plugin: IsolatedPlugin): PluginDescription {
  const { runner: _runner, close: _close, ...described } = plugin;
  return described;
}

/** Describes one plugin package in a process of its own, then ends it. */
export async function describePlugin(spec: PluginSpec, options: IsolationOptions = {}): Promise<PluginDescription> {
  const plugin = await startPlugin(spec, options);
  await plugin.close();
  return description(plugin);
}

/** Describes every plugin in a plugin folder, each in a process of its own, then ends them. */
export async function describePlugins(
  pluginDir: string,
  options: IsolationOptions = {},
): Promise<{ described: PluginDescription[]; failed: IsolatedPlugins['failed'] }> {
  const { loaded, failed, close } = await startPlugins(pluginDir, options);
  await close();
  return { described: loaded.map(description), failed };
}
