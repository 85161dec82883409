import { pathToFileURL } from 'node:url';
import { connectorOf, errorText } from './load.js';

/**
 * The child side of an isolated plugin: imports the connector's entry (its real path, then
 * the path as the manifest writes it) and answers the host with its catalogue metadata over the IPC channel. The
 * channel's `send` is taken before the plugin's code runs, so the plugin cannot write to it.
 */

const send = process.send?.bind(process);
process.send = undefined;

async function describeEntry(entryPath: string, entry: string): Promise<unknown> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(entryPath).href)) as Record<string, unknown>;
  } catch (error) {
    // A refusal of the permission model names what was refused: the fix is in the plugin's dependencies.
    const resource = (error as { resource?: unknown }).resource;
    return { type: 'failed', reason: `the entry ${entry} threw on import: ${errorText(error)}${typeof resource === 'string' ? ` (${resource})` : ''}` };
  }
  const found = connectorOf(module.default);
  if ('problem' in found) return { type: 'failed', reason: found.problem };
  const { connector } = found;
  return {
    type: 'described',
    connector: {
      key: connector.key,
      name: connector.name,
      connectorVersion: connector.version,
      actions: connector.actions.map((action) => ({
        key: action.key,
        label: action.label,
        direction: action.direction,
        input: action.input.toJSONSchema(),
      })),
    },
  };
}

if (send) send(await describeEntry(process.argv[2] ?? '', process.argv[3] ?? ''));
