import { type AuthScheme, excerpt } from '@plugboard/sdk';
import type { ConnectorRunner } from '@plugboard/sdk/host';
import type { ChildProcess } from 'node:child_process';
import { openChannel, type StartSettings } from './channel.js';
import { PluginDescriptionError, readDescription } from './description.js';
import { type Exchange, type ExchangeHandlers, Exchanges } from './exchanges.js';
import { type IsolationLimits, type IsolationOptions, limitsOf } from './isolation-options.js';
import { PluginLoadError, type PluginManifest } from './manifest.js';
import { type KillReason, PluginKilledError } from './plugin-killed.js';
import type { PluginDescription, PluginPort, PluginUsage } from './plugin-port.js';
import type { ChildMessage, DescribedConnector, HostMessage } from './protocol.js';
import { pluginRunner } from './runner.js';
import { captureLog, readableFolders, spawnPlugin } from './spawn.js';
import { schemesById } from './token-asks.js';

/**
 * One plugin package's process as the host holds it, started when first needed and again after
 * it ended. Here its parts meet: the process is spawned under the permission model (`spawn.ts`),
 * spoken to over the channel (`channel.ts`) in exchanges with idle timers (`exchanges.ts`), and
 * ended with a reason the exchanges fail with; the runner (`runner.ts`), its runs
 * (`remote-run.ts`) and their token asks (`token-asks.ts`) reach it through `PluginPort`.
 */
export class PluginProcess implements PluginPort {
  description!: PluginDescription;
  /** The connector's OAuth2 schemes by id, as it described them when it loaded. */
  oauth2 = new Map<string, AuthScheme>();
  readonly limits: Required<IsolationLimits>;
  private child: ChildProcess | undefined;
  private send: ((message: HostMessage) => void) | undefined;
  private starting: Promise<void> | undefined;
  private readLog: () => string = () => '';
  private killed: { reason: KillReason; message: string } | undefined;
  private readable: Set<string> | undefined;
  private readonly exchanges: Exchanges;

  constructor(
    private readonly manifest: PluginManifest,
    private readonly dir: string,
    private readonly sdkRoots: string[],
    private readonly options: IsolationOptions,
  ) {
    this.limits = limitsOf(options);
    this.exchanges = new Exchanges(this.limits.idleTimeoutMs, {
      send: (message) => this.send?.(message),
      kill: (reason, message) => this.kill(reason, message),
      changed: () => this.idleWhenQuiet(),
    });
  }

  get plugin(): string {
    return this.manifest.package;
  }

  get log(): string {
    return this.readLog();
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
    this.readable ??= readableFolders(this.dir);
    const child = spawnPlugin(this.readable, this.limits.maxOldSpaceMb);
    this.child = child;
    this.killed = undefined;
    this.readLog = captureLog(child);
    return new Promise<void>((resolveStart, rejectStart) => {
      let described = false;
      const timer = setTimeout(
        () => this.kill('load_timeout', `did not load within ${this.limits.loadTimeoutMs} ms; its process was killed`),
        this.limits.loadTimeoutMs,
      );
      this.send = openChannel(child, this.startSettings(), this.limits.maxMessageMb, {
        onMessage: (message) => {
          if (described) return this.exchanges.route(message);
          described = true;
          clearTimeout(timer);
          const refusal = this.describe(message);
          if (refusal) rejectStart(refusal);
          else resolveStart();
        },
        onBreach: (reason, message) => this.kill(reason, message),
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const error = this.ended(child, described, signal ?? `code ${code}`);
        if (!described)
          rejectStart(error.reason === 'closed' ? new PluginLoadError(this.manifest.package, 'not loaded') : error);
        this.exchanges.failAll(error);
      });
    });
  }

  private startSettings(): StartSettings {
    return {
      entryPath: this.manifest.entryPath,
      entry: this.manifest.connector,
      dir: this.dir,
      sdkRoots: this.sdkRoots,
      ...(this.options.allow ? { allow: this.options.allow } : {}),
      ...(this.options.redis ? { redis: this.options.redis } : {}),
      ...(this.options.tools ? { tools: true as const } : {}),
    };
  }

  /** Takes the process's first message, its description; anything else ends it, and is the reason it did not load. */
  private describe(message: ChildMessage): PluginLoadError | undefined {
    if (message.type === 'described') {
      let described: DescribedConnector;
      try {
        described = readDescription(this.manifest.package, message.connector, this.options.tools === true);
      } catch (error) {
        if (!(error instanceof PluginDescriptionError)) throw error;
        this.kill('closed', 'not loaded');
        return error;
      }
      const { oauth2, ...connector } = described;
      this.oauth2 = schemesById(oauth2);
      this.description = {
        ...connector,
        package: this.manifest.package,
        version: this.manifest.version,
        dir: this.dir,
      };
      this.idleWhenQuiet();
      return undefined;
    }
    this.kill('closed', 'not loaded');
    return new PluginLoadError(
      this.manifest.package,
      message.type === 'failed'
        ? excerpt(String(message.reason), 2000)
        : 'it answered something other than its description',
    );
  }

  /** The process ended: why, as the exchanges it held fail with it. */
  private ended(child: ChildProcess, described: boolean, how: string): PluginKilledError {
    const memory = /heap out of memory|Reached heap limit/i.test(this.log);
    const ended =
      this.killed ??
      (memory
        ? {
            reason: 'memory' as const,
            message: `ran out of its ${this.limits.maxOldSpaceMb} MB heap; its process ended`,
          }
        : { reason: 'exited' as const, message: `its process exited (${how})` });
    if (this.child === child) {
      this.child = undefined;
      this.send = undefined;
      this.starting = undefined;
    }
    return new PluginKilledError(
      this.manifest.package,
      ended.reason,
      described ? ended.message : ended.message.replace('its process', 'while loading: its process'),
      this.log,
    );
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
    const quiet = this.exchanges.quiet;
    for (const handle of [child, ...child.stdio]) {
      const target = handle as { ref?: () => void; unref?: () => void } | null | undefined;
      if (quiet) target?.unref?.();
      else target?.ref?.();
    }
  }

  open(build: (id: string) => HostMessage, handlers: ExchangeHandlers): Exchange {
    return this.exchanges.start(build, handlers);
  }

  /** The running process's memory as it reports it; undefined when none runs (never started, or ended). */
  usage(): Promise<PluginUsage | undefined> {
    const pid = this.child?.pid;
    if (pid === undefined || !this.description) return Promise.resolve(undefined);
    return new Promise((resolveUsage, reject) => {
      const exchange = this.open((id) => ({ type: 'usage', id }), {
        onMessage: (message) => {
          exchange.end();
          if (message.type === 'usage' && isSize(message.rss) && isSize(message.heapUsed))
            resolveUsage({ pid, rssBytes: message.rss, heapUsedBytes: message.heapUsed });
          else
            reject(
              new PluginKilledError(this.plugin, 'forged', 'answered a question of its memory with something else', ''),
            );
        },
        onKilled: () => {
          exchange.end();
          resolveUsage(undefined);
        },
      });
    });
  }

  runner(): ConnectorRunner {
    return pluginRunner(this);
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

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
