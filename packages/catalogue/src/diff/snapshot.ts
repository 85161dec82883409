import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareText } from '@plugboard/sdk/host';
import type { CatalogueEntry, CatalogueOperation } from '../entry.js';
import { connectorFile, dataTypeFile, INDEX_FILE, inputSchemaFile } from '../paths.js';
import type { JsonObject } from '../public-connector-schema.js';
import { stableJson } from '../write.js';

/**
 * A catalogue folder as the diff reads it: the connectors the platform serves, checked against
 * `index.json`, and the JSON Schemas they reference.
 */

/** What the diff reads of a catalogue folder. */
export interface CatalogueSnapshot {
  entries: CatalogueEntry[];
  /** Relative path -> parsed JSON Schema, for the data types and inputs the entries reference. */
  schemas: ReadonlyMap<string, JsonObject>;
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CatalogueReadError(`${path} is missing`);
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogueReadError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

/** A folder that is not a readable catalogue. */
export class CatalogueReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogueReadError';
  }
}

function schemaRefs(entry: CatalogueEntry): string[] {
  const refs = new Set<string>(Object.values(entry.dataTypes ?? {}));
  for (const operation of entry.operations) {
    refs.add(operation.inputSchema ?? inputSchemaFile(entry.key, operation.key));
    if (operation.entity !== null) refs.add(operation.entitySchema ?? dataTypeFile(entry.key, operation.entity));
    if (operation.checkpointSchema !== undefined) refs.add(operation.checkpointSchema);
  }
  return [...refs].sort(compareText);
}

/** A catalogue folder whose `index.json` disagrees with its connector files, or that lacks a schema file. */
export class CatalogueMismatchError extends CatalogueReadError {
  constructor(
    readonly dir: string,
    readonly problems: string[],
  ) {
    super(`${dir}: the catalogue does not hold together: ${problems.join('; ')}`);
    this.name = 'CatalogueMismatchError';
  }
}

/**
 * Reads a catalogue folder written by `generateCatalogue`: the connectors from
 * `connectors/<key>.json` (what the platform serves), checked against
 * `index.json` (the same connectors, the same entries), and every schema file
 * they reference.
 */
export async function readCatalogue(dir: string): Promise<CatalogueSnapshot> {
  const index = (await readJson(join(dir, INDEX_FILE))) as { connectors?: unknown };
  if (!index || !Array.isArray(index.connectors))
    throw new CatalogueReadError(`${join(dir, INDEX_FILE)} has no list of connectors`);
  const listed = index.connectors as CatalogueEntry[];
  let names: string[];
  try {
    names = (await readdir(join(dir, 'connectors'))).filter((name) => name.endsWith('.json')).sort(compareText);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    names = [];
  }
  const files = new Map<string, CatalogueEntry>();
  for (const name of names)
    files.set(`connectors/${name}`, (await readJson(join(dir, 'connectors', name))) as CatalogueEntry);
  const problems: string[] = [];
  const claimed = new Set<string>();
  for (const entry of listed) {
    const path = connectorFile(String(entry?.key));
    claimed.add(path);
    const file = files.get(path);
    if (!file) problems.push(`connector '${String(entry?.key)}' is in index.json but ${path} is missing`);
    else if (file.key !== entry.key)
      problems.push(`${path} holds connector '${String(file.key)}', index.json lists '${entry.key}'`);
    else if (stableJson(file) !== stableJson(entry)) {
      const versions =
        file.version === entry.version
          ? ''
          : ` (version ${String(entry.version)} in index.json, ${String(file.version)} in the file)`;
      problems.push(`connector '${entry.key}' differs between index.json and ${path}${versions}`);
    }
  }
  for (const [path, file] of files)
    if (!claimed.has(path)) problems.push(`${path} (connector '${String(file?.key)}') is not in index.json`);
  if (problems.length > 0) throw new CatalogueMismatchError(dir, problems);

  const entries = listed.map((entry) => files.get(connectorFile(entry.key)) as CatalogueEntry);
  const schemas = new Map<string, JsonObject>();
  const missing: string[] = [];
  await Promise.all(
    entries.flatMap(schemaRefs).map(async (ref) => {
      try {
        schemas.set(ref, (await readJson(join(dir, ref))) as JsonObject);
      } catch (error) {
        if (!(error instanceof CatalogueReadError)) throw error;
        missing.push(error.message);
      }
    }),
  );
  if (missing.length > 0) throw new CatalogueMismatchError(dir, missing.sort(compareText));
  return { entries, schemas };
}

const EMPTY: JsonObject = {};

/** The input schema of an operation in a snapshot (an empty schema when it has none). */
export function inputSchemaOf(
  snapshot: CatalogueSnapshot,
  entry: CatalogueEntry,
  operation: CatalogueOperation,
): JsonObject {
  return snapshot.schemas.get(operation.inputSchema ?? inputSchemaFile(entry.key, operation.key)) ?? EMPTY;
}

/** The schema of a data type of a connector in a snapshot. */
export function dataTypeSchemaOf(
  snapshot: CatalogueSnapshot,
  entry: CatalogueEntry,
  name: string,
): JsonObject | undefined {
  return snapshot.schemas.get(entry.dataTypes?.[name] ?? dataTypeFile(entry.key, name));
}
