import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadPlugin } from '@plugboard/runtime';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { stateFolder, useCleanup } from './support.js';

/**
 * The connector of docs/triggers.md, "Declaring a provider webhook", exactly as written: made a
 * package of its own in a temporary folder (the page's `package.json`, the code compiled to
 * JavaScript) and loaded by the loader every command finds connectors with.
 */

useCleanup();

const GUIDE = join(import.meta.dirname, '..', '..', '..', 'docs', 'triggers.md');

/** The block of that section whose fence opens with `info` (` ```ts`, ` ```json package.json`). */
async function declared(info: string): Promise<string> {
  const section = (await readFile(GUIDE, 'utf8'))
    .split(/^## /m)
    .find((part) => part.startsWith('Declaring a provider webhook\n'));
  const code = section?.split(`\n\`\`\`${info}\n`)[1]?.split('\n```\n')[0];
  if (!code) throw new Error(`docs/triggers.md has no \`\`\`${info} block under "## Declaring a provider webhook"`);
  return `${code}\n`;
}

describe('the connector of docs/triggers.md, "Declaring a provider webhook"', () => {
  it('is a package the kit loads, with its trigger', async () => {
    const dir = await stateFolder();
    const compiled = ts.transpileModule(await declared('ts'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await mkdir(join(dir, 'dist'));
    await writeFile(join(dir, 'dist', 'index.js'), compiled.outputText);
    await writeFile(join(dir, 'package.json'), await declared('json package.json'));
    // Its imports (the SDK, zod) resolve as an installed package's would.
    await symlink(join(import.meta.dirname, '..', 'node_modules'), join(dir, 'node_modules'), 'dir');
    const loaded = await loadPlugin({ dir });
    expect(loaded.key).toBe('shop');
    expect(loaded.connector.triggers?.map((trigger) => trigger.key)).toEqual(['orders.created']);
  });
});
