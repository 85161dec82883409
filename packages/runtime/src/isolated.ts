import { type ConnectorRunner, compareText } from '@plugboard/sdk/host';
import type { IsolationOptions } from './isolation-options.js';
import {
  type FailedPlugin,
  folderPackages,
  hostSdkVersion,
  type PackageLocation,
  type PluginSpec,
  packageDir,
  uniqueKeys,
} from './load.js';
import { checkSdkRange, PluginLoadError, readManifest } from './manifest.js';
import { PluginProcess } from './plugin-host.js';
import { type KillReason, PluginKilledError } from './plugin-killed.js';
import type { PluginDescription, PluginUsage } from './plugin-port.js';

/**
 * Plugins in processes of their own: one per package, reused across runs, started with an
 * empty environment under Node's permission model (reading only the package, the dependencies
 * it imports and the SDK; no writes, child processes, workers or addons) and a heap limit. The
 * host keeps the gate, the idempotency claim, the acknowledgement and the checkpoint commit; the
 * plugin's process validates, runs the action and its HTTP pipeline, and sends pages, progress,
 * logs and failures back on a pipe of their own, where the host redacts them again. What the
 * plugin prints is its log, never part of an answer.
 */

/** A plugin running in a process of its own; give it to `createExecutor({ plugins })`. */
export interface IsolatedPlugin extends PluginDescription {
  runner: ConnectorRunner;
  /** Ends the plugin's process; a later run starts it again. */
  close(): Promise<void>;
  /** Its process's id and memory, as the process reports them between runs; undefined when none runs. */
  usage(): Promise<PluginUsage | undefined>;
}

export interface IsolatedPlugins {
  loaded: IsolatedPlugin[];
  failed: Array<FailedPlugin & { killed?: KillReason }>;
  /** Ends every plugin's process. */
  close(): Promise<void>;
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
  return {
    ...plugin.description,
    runner: plugin.runner(),
    close: () => plugin.close(),
    usage: () => plugin.usage(),
  };
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
  const { runner: _runner, close: _close, usage: _usage, ...described } = plugin;
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
