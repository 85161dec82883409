import { pathToFileURL } from 'node:url';
import { connectorOf, errorText } from './load.js';

/**
 * The child side of an isolated plugin: imports the connector's entry (its real path, then
 * the path as the manifest writes it) and answers the host with its catalogue metadata over the IPC channel. The
 * channel's `send` and the host's nonce are taken before the plugin's code runs: the plugin cannot call
 * `send`, and what it writes to the channel's descriptor itself cannot quote the nonce.
 */

const send = process.send?.bind(process);
process.send = undefined;
// The host's nonce, read before the plugin's code runs: the plugin cannot quote it in a forged answer.
const nonce = await new Promise<unknown>((resolve) => process.once('message', (message) => resolve((message as { nonce?: unknown } | null)?.nonce)));

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

if (send) send({ ...((await describeEntry(process.argv[2] ?? '', process.argv[3] ?? '')) as object), nonce });
