import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadPlugin } from '@plugboard/runtime';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { stateFolder, useCleanup } from './support.js';

/**
 * The connector of docs/triggers.md, "Declaring a provider webhook", exactly as written: made a
 * package of its own in a temporary folder (the manifest the docs point to, the code compiled to
 * JavaScript) and loaded by the loader every command finds connectors with.
 */

useCleanup();

const GUIDE = join(import.meta.dirname, '..', '..', '..', 'docs', 'triggers.md');

async function declared(): Promise<string> {
  const section = (await readFile(GUIDE, 'utf8'))
    .split(/^## /m)
    .find((part) => part.startsWith('Declaring a provider webhook\n'));
  const code = section && /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!code) throw new Error('docs/triggers.md has no ts block under "## Declaring a provider webhook"');
  return code;
}

describe('the connector of docs/triggers.md, "Declaring a provider webhook"', () => {
  it('is a package the kit loads, with its trigger', async () => {
    const dir = await stateFolder();
    const compiled = ts.transpileModule(await declared(), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await mkdir(join(dir, 'dist'));
    await writeFile(join(dir, 'dist', 'index.js'), compiled.outputText);
    const manifest = { connector: './dist/index.js', sdk: '^0.1.0' };
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'shop-connector', version: '1.0.0', type: 'module', plugboard: manifest }),
    );
    // Its imports (the SDK, zod) resolve as an installed package's would.
    await symlink(join(import.meta.dirname, '..', 'node_modules'), join(dir, 'node_modules'), 'dir');
    const loaded = await loadPlugin({ dir });
    expect(loaded.key).toBe('shop');
    expect(loaded.connector.triggers?.map((trigger) => trigger.key)).toEqual(['orders.created']);
  });
});
