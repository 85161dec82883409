import type { SharedRedis } from './protocol.js';

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
   * Shares every plugin's budgets through Redis, as `createHostTransport({ redis })`: a URL, or the URL
   * with a key prefix. The plugins' processes connect to it themselves, so give them a Redis (or an
   * ACL user) that holds budgets only.
   */
  redis?: SharedRedis;
  /**
   * Each plugin also describes its actions as a tool server (an MCP server) needs them: the
   * description's `tools` (schemas computed in the plugin's process, each at most 64 KB). Off
   * by default: computing the schemas adds to every start.
   */
  tools?: boolean;
}

const DEFAULTS: Required<IsolationLimits> = {
  loadTimeoutMs: 10_000,
  idleTimeoutMs: 300_000,
  cancelGraceMs: 2_000,
  maxOldSpaceMb: 256,
  maxMessageMb: 64,
};

/** The limits a plugin's process runs under: the options' own, the defaults for the rest. */
export function limitsOf(options: IsolationOptions): Required<IsolationLimits> {
  return {
    ...DEFAULTS,
    ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
  } as Required<IsolationLimits>;
}
