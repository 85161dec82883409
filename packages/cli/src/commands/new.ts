import { resolve } from 'node:path';
import type { Invocation } from '../program.js';
import { scaffoldConnector } from '../scaffold.js';

/** `plugboard new <name> [--dir DIR]`: a connector package that builds and passes its tests after `npm install`. */
export async function newCommand({ args, values, io }: Invocation): Promise<void> {
  const [name] = args;
  const dir = resolve(io.cwd, typeof values.dir === 'string' ? values.dir : name!);
  const scaffold = await scaffoldConnector({ name: name!, dir });
  const shown = typeof values.dir === 'string' ? values.dir : name!;
  io.stdout.write(
    [
      `plugboard new: ${scaffold.files.length} files in ${scaffold.dir}`,
      '',
      'Next:',
      `  cd ${shown}`,
      '  npm install',
      '  npm test                                   # the standard suite on the recorded fixtures',
      '  npx plugboard mock openapi.yaml --port 4010 # a stand-in to record against (README.md)',
      '',
    ].join('\n'),
  );
}
