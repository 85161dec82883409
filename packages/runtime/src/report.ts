import { describePlugins } from './isolated.js';
import type { IsolationLimits } from './isolation-options.js';
import { type LoadOptions, loadPlugins } from './load.js';

/** What `plugboard plugins` prints: the packages of a plugin folder that loaded, and those that did not. */
export interface PluginsReport {
  loaded: Array<{ key: string; package: string; version: string }>;
  failed: Array<{ package: string; reason: string }>;
}

export interface ReportOptions extends LoadOptions, IsolationLimits {
  /**
   * `process` (default): each plugin is read in a child process of its own and never imported
   * into the host; `none`: imported into the host, for a trusted plugin folder.
   */
  isolation?: 'process' | 'none';
}

/** Reports each package of a plugin folder: key and version when it loaded, the reason when not. */
export async function pluginsReport(dir: string, options: ReportOptions = {}): Promise<PluginsReport> {
  const { loaded, failed } =
    options.isolation === 'none'
      ? await loadPlugins(dir, options)
      : await describePlugins(dir, options).then(({ described, failed }) => ({ loaded: described, failed }));
  return {
    loaded: loaded.map(({ key, package: name, version }) => ({ key, package: name, version })),
    failed: failed.map(({ package: name, reason }) => ({ package: name, reason })),
  };
}
