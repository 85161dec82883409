import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { compareText } from '@plugboard/sdk/host';
import { INDEX_FILE, OWNED_ENTRIES } from './paths.js';

/**
 * Deterministic writing: JSON with two-space indentation and a trailing
 * newline, object keys in the order they were built (callers build them in a
 * fixed order and sort every map), files written in sorted path order.
 */

/** Stable JSON text of a value: the same value always gives the same bytes. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A copy of a map-like object with its keys in code-point order. */
export function sortedRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort(compareText)) out[key] = record[key] as T;
  return out;
}

/** The generated files of one catalogue: relative path -> text. */
export type CatalogueFiles = ReadonlyMap<string, string>;

async function isCatalogueFolder(dir: string): Promise<boolean> {
  try {
    const index = JSON.parse(await readFile(join(dir, INDEX_FILE), 'utf8')) as { generator?: { name?: unknown } };
    return index.generator?.name === '@plugboard/catalogue';
  } catch {
    return false;
  }
}

/**
 * Makes `dir` ready for a new catalogue: a missing or empty folder is fine; a
 * folder that holds an earlier catalogue loses the entries a catalogue owns (so
 * files of a connector that left the pack do not linger); any other non-empty
 * folder is refused rather than mixed with.
 */
export async function prepareOutDir(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      await mkdir(dir, { recursive: true });
      return;
    }
    throw error;
  }
  if (names.length === 0) return;
  if (!(await isCatalogueFolder(dir))) {
    throw new Error(`${dir} is not empty and holds no Plugboard catalogue; choose an empty or new folder`);
  }
  await Promise.all(OWNED_ENTRIES.map((name) => rm(join(dir, name), { recursive: true, force: true })));
}

/** Writes every file under `dir`, creating folders as needed, in sorted path order. */
export async function writeFiles(dir: string, files: CatalogueFiles): Promise<string[]> {
  const paths = [...files.keys()].sort(compareText);
  const folders = [...new Set(paths.map((path) => dirname(join(dir, path))))].sort(compareText);
  for (const folder of folders) await mkdir(folder, { recursive: true });
  await Promise.all(paths.map((path) => writeFile(join(dir, path), files.get(path) as string)));
  return paths;
}
