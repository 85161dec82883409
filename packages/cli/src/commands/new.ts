import { resolve } from 'node:path';
import type { OperationChoice } from '../openapi-actions.js';
import type { Invocation } from '../invocation.js';
import { scaffoldConnector } from '../scaffold.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard new <name> [--dir DIR] [--from-openapi FILE --operations ID[=KEY],...]`: a connector package
 * that builds and passes its tests after `npm install`, or whose actions come from an OpenAPI document.
 */
export async function newCommand({ args, values, io }: Invocation): Promise<void> {
  const [name] = args;
  const dir = resolve(io.cwd, typeof values.dir === 'string' ? values.dir : name!);
  const file = typeof values['from-openapi'] === 'string' ? resolve(io.cwd, values['from-openapi']) : undefined;
  const operations =
    typeof values.operations === 'string'
      ? values.operations
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean)
          .map((entry): OperationChoice => {
            // `operationId=resource.verb` names the action's key; the key never holds '='.
            const at = entry.lastIndexOf('=');
            return at < 0
              ? { operation: entry }
              : { operation: entry.slice(0, at).trim(), key: entry.slice(at + 1).trim() };
          })
      : [];
  if (!file && operations.length > 0) throw new UsageError('--operations goes with --from-openapi <file>');
  const scaffold = await scaffoldConnector({ name: name!, dir, ...(file ? { openapi: { file, operations } } : {}) });
  const shown = typeof values.dir === 'string' ? values.dir : name!;
  // Each command with its comment, the comments in one column.
  const steps: Array<[string, string?]> = file
    ? [
        ['npm install'],
        // The mock serves a stand-in authorization server only for a connector it can load.
        ['npm run build'],
        [scaffold.mock, 'a stand-in to record against; README.md lists the record commands'],
        ['npm test', 'once every action has a recorded scenario'],
      ]
    : [
        ['npm install'],
        ['npm test', 'the standard suite on the recorded fixtures'],
        [scaffold.mock, 'a stand-in to record against (README.md)'],
      ];
  const width = Math.max(...steps.filter(([, comment]) => comment).map(([command]) => command.length));
  io.stdout.write(
    [
      `plugboard new: ${scaffold.files.length} files in ${scaffold.dir}`,
      '',
      'Next:',
      `  cd ${shown}`,
      ...steps.map(([command, comment]) => `  ${comment ? `${command.padEnd(width)} # ${comment}` : command}`),
      '',
    ].join('\n'),
  );
}
