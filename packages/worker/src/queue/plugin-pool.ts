import { realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InvalidInputError } from '@plugboard/sdk';
import type { ConnectorRunner, PluginConnector } from '@plugboard/sdk/host';
import {
  describePlugins,
  type IsolatedPlugin,
  type IsolationOptions,
  type PluginDescription,
  type PluginSpec,
  startPlugin,
} from '@plugboard/runtime';

/**
 * The worker's isolated plugins, kept warm: a plugin's process is started on its connector's
 * first run and serves the runs that follow, until it served `recycleAfterRuns` runs or its
 * resident memory passed `memoryCeilingMb` after a run. Then it takes no new run, finishes the
 * ones it holds and ends, and a fresh process takes the next. At most `maxPlugins` processes are
 * kept: past that, the least recently used one ends (once its runs are over).
 */

export interface PluginPoolOptions {
  /** Runs a plugin's process serves before a fresh one replaces it; default 1,000. */
  recycleAfterRuns?: number;
  /** A process whose resident memory (RSS) passed this many MB after a run is replaced; default 256. */
  memoryCeilingMb?: number;
  /** Plugins' processes kept at once; default 16. */
  maxPlugins?: number;
}

const DEFAULTS: Required<PluginPoolOptions> = { recycleAfterRuns: 1000, memoryCeilingMb: 256, maxPlugins: 16 };
const MB = 1024 * 1024;

/** The options, checked: each a whole number of 1 or more, or left out. */
export function poolSettings(options: PluginPoolOptions): Required<PluginPoolOptions> {
  const settings = { ...DEFAULTS };
  for (const field of Object.keys(DEFAULTS) as Array<keyof PluginPoolOptions>) {
    const value = options[field];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1)
      throw new InvalidInputError('worker', [{ path: field, message: 'must be a whole number of 1 or more' }]);
    settings[field] = value;
  }
  return settings;
}

/** One process of a plugin, as the pool counts it; a current one (in `current`) is never retiring. */
interface Generation {
  readonly plugin: Promise<IsolatedPlugin>;
  /** Runs handed to it, and runs it holds now. */
  runs: number;
  held: number;
  /** Takes no new run; ends once it holds none. */
  retiring: boolean;
  /** The memory check after its last run: the next run waits for it. */
  checking: Promise<void>;
}

/** A run's hold on a plugin's process; `release()` once the run ended. */
export interface PluginLease {
  plugin: IsolatedPlugin;
  release(): void;
}

/** The spec of a described package: by name from the folder when it sits at its top, so its libraries share the host's SDK too. */
function specOf(pluginDir: string, name: string, dir: string): PluginSpec {
  const modules = basename(pluginDir) === 'node_modules' ? pluginDir : join(pluginDir, 'node_modules');
  try {
    if (realpathSync(join(modules, ...name.split('/'))) === dir) return { name, from: pluginDir };
  } catch {
    // Not at the top of the folder (a dependency pnpm hoisted): by its own folder.
  }
  return { dir };
}

export class PluginPool {
  /** The current process of each connector key, least recently used first. */
  private readonly current = new Map<string, Generation>();
  private readonly ending = new Set<Promise<void>>();

  private constructor(
    private readonly specs: ReadonlyMap<string, PluginSpec>,
    private readonly described: readonly PluginDescription[],
    private readonly isolation: IsolationOptions,
    private readonly settings: Required<PluginPoolOptions>,
  ) {}

  /** Learns which package holds which connector (each described in a process that then ends); starts none yet. */
  static async open(pluginDir: string, isolation: IsolationOptions, options: PluginPoolOptions): Promise<PluginPool> {
    const settings = poolSettings(options);
    const { described } = await describePlugins(pluginDir, isolation);
    const specs = new Map(described.map((plugin) => [plugin.key, specOf(pluginDir, plugin.package, plugin.dir)]));
    return new PluginPool(specs, described, isolation, settings);
  }

  /**
   * The plugins as a run's checks take them (a schedule's tick, before it queues a run): each
   * preparation holds its plugin's process for as long as it takes; they never run anything.
   */
  checking(): PluginConnector[] {
    return this.described.map(({ key, name, connectorVersion, package: pkg }) => {
      const held = async <T>(work: (runner: ConnectorRunner) => Promise<T>): Promise<T> => {
        const lease = (await this.lease(key))!;
        try {
          return await work(lease.plugin.runner);
        } finally {
          lease.release();
        }
      };
      const refuse = (): never => {
        throw new TypeError(`${key}: the worker's checks prepare runs only`);
      };
      const runner: ConnectorRunner = {
        key,
        name,
        version: connectorVersion,
        prepare: (action, options) => held((plugin) => plugin.prepare(action, options)),
        prepareOptions: (action, field, options) => held((plugin) => plugin.prepareOptions(action, field, options)),
        resume: refuse,
        run: refuse,
      };
      return { package: pkg, runner };
    });
  }

  /** A hold on the process of `key`'s plugin for one run (started if none serves); undefined for a key no plugin holds. */
  async lease(key: string): Promise<PluginLease | undefined> {
    const spec = this.specs.get(key);
    if (!spec) return undefined;
    // The memory check after the last run decides whether this process takes the next.
    await this.current.get(key)?.checking;
    const held = await this.serving(key, spec);
    try {
      const plugin = await held.plugin;
      return { plugin, release: () => this.release(key, held, plugin) };
    } catch (error) {
      this.release(key, held);
      throw error;
    }
  }

  /** The process that serves `key`'s next run, taken for it; a new one once the count is within its bound. */
  private async serving(key: string, spec: PluginSpec): Promise<Generation> {
    for (;;) {
      const current = this.current.get(key);
      if (current) return this.take(key, current);
      const others = [...this.current].filter(([other]) => other !== key);
      if (others.length < this.settings.maxPlugins) break;
      // Strictly within the bound: the least recently used one, when idle, ends before a new one starts.
      await this.retire(...others[0]!);
    }
    const plugin = startPlugin(spec, this.isolation);
    return this.take(key, { plugin, runs: 0, held: 0, retiring: false, checking: Promise.resolve() });
  }

  /** Counts a run on the process and holds it, in the same turn as it was chosen: nothing can end it in between. */
  private take(key: string, generation: Generation): Generation {
    // Most recently used last.
    this.current.delete(key);
    this.current.set(key, generation);
    generation.runs += 1;
    generation.held += 1;
    if (generation.runs >= this.settings.recycleAfterRuns) void this.retire(key, generation);
    return generation;
  }

  /** Takes no new run on it; ends it now when it holds none (resolving once it ended), else after its last. */
  private retire(key: string, generation: Generation): Promise<void> | undefined {
    if (generation.retiring) return undefined;
    generation.retiring = true;
    if (this.current.get(key) === generation) this.current.delete(key);
    return generation.held === 0 ? this.end(generation) : undefined;
  }

  private release(key: string, generation: Generation, plugin?: IsolatedPlugin): void {
    generation.held -= 1;
    if (generation.retiring) {
      if (generation.held === 0) void this.end(generation);
      return;
    }
    // A process that did not start, or answers its memory wrongly, is not kept.
    if (!plugin) return void this.retire(key, generation);
    generation.checking = plugin.usage().then(
      (usage) => {
        if (usage && usage.rssBytes > this.settings.memoryCeilingMb * MB) void this.retire(key, generation);
      },
      () => void this.retire(key, generation),
    );
  }

  private end(generation: Generation): Promise<void> {
    const ended = generation.plugin.then(
      (plugin) => plugin.close(),
      () => undefined,
    );
    this.ending.add(ended);
    return ended.finally(() => this.ending.delete(ended));
  }

  /** Ends every process; call once the runs ended. */
  async close(): Promise<void> {
    const generations = [...this.current.values()];
    this.current.clear();
    await Promise.all([...generations.map((generation) => this.end(generation)), ...this.ending]);
  }
}
