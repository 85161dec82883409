import { type LoadOptions, loadPlugins } from './load.js';

/** What `plugboard plugins` prints: the packages of a plugin folder that loaded, and those that did not. */
export interface PluginsReport {
  loaded: Array<{ key: string; package: string; version: string }>;
  failed: Array<{ package: string; reason: string }>;
}

/** Loads a plugin folder and reports each package: key and version when it loaded, the reason when not. */
export async function pluginsReport(dir: string, options: LoadOptions = {}): Promise<PluginsReport> {
  const { loaded, failed } = await loadPlugins(dir, options);
  return {
    loaded: loaded.map(({ key, package: name, version }) => ({ key, package: name, version })),
    failed: failed.map(({ package: name, reason }) => ({ package: name, reason })),
  };
}
