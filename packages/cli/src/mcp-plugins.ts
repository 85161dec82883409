import type { DescribedTools } from '@plugboard/mcp';
import type { Connector } from '@plugboard/sdk';
import { type ActionArgs, type IsolatedActionArgs, startIsolated } from './action-args.js';
import type { Invocation } from './invocation.js';
import { UsageError } from './usage.js';

/**
 * The connector `plugboard mcp` serves: one imported here (`--connector`, a key), or with
 * `--plugins DIR` the folder's connector of that key, started in a process of its own exactly as
 * `run --plugins` starts it and described there, each action's tool included (its schemas computed
 * in that process, checked and bounded by the host). Either way the tools come from the same
 * `actionTools` and every call goes through the same executor (`actionExecutor`).
 */

export interface ServedConnector {
  key: string;
  /** The connector's own version. */
  version: string;
  /** The connector imported here; none for a plugin folder's, whose code stays in its own process. */
  connector: Connector | undefined;
  dir: string | undefined;
  /** What the executor runs: the imported connector, or the plugin's process. */
  runs: Pick<ActionArgs, 'connector' | 'target'> | Pick<IsolatedActionArgs, 'plugin' | 'target'>;
  /** What `actionTools` builds the tools from. */
  tools: Connector | DescribedTools;
}

async function servedConnector(invocation: Invocation): Promise<ServedConnector> {
  const values = invocation.values as Record<string, string | undefined>;
  const key = invocation.args[0];
  if (!values.plugins) {
    const found = await invocation.findConnector({ key, connector: values.connector, plugins: undefined });
    const { connector } = found;
    const target = { key: connector.key, actions: connector.actions };
    return {
      key: connector.key,
      version: connector.version,
      connector,
      dir: found.dir,
      runs: { connector, target },
      tools: connector,
    };
  }
  if (values.connector) throw new UsageError('--connector and --plugins: name one place the connector comes from');
  if (key === undefined)
    throw new UsageError('--plugins: name the connector to serve, e.g. plugboard mcp insurance --plugins DIR');
  const plugin = await startIsolated(invocation, key, { tools: true });
  return {
    key: plugin.key,
    version: plugin.connectorVersion,
    connector: undefined,
    dir: undefined,
    runs: { plugin, target: { key: plugin.key, actions: plugin.actions } },
    // Started with tools: the host refused a description without them.
    tools: { key: plugin.key, name: plugin.name, tools: plugin.tools! },
  };
}

/** Runs `serve` with the connector it serves; a plugin's process ends with it, when it stops or is refused. */
export async function servingConnector(
  invocation: Invocation,
  serve: (invocation: Invocation, found: ServedConnector) => Promise<void>,
): Promise<void> {
  const found = await servedConnector(invocation);
  try {
    await serve(invocation, found);
  } finally {
    if ('plugin' in found.runs) await found.runs.plugin.close();
  }
}
