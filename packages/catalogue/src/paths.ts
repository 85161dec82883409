/**
 * Where each file of a catalogue folder lives, relative to the folder. The
 * entries reference schema and type files by these paths, so one table keeps
 * the writer, the entries, the site and the diff in step.
 */

/** A file-name-safe form of a key or data-type id (letters, digits, `.`, `_`, `-`). */
export function safeName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return safe === '' ? '_' : safe;
}

export const INDEX_FILE = 'index.json';
export const OPENAPI_FILE = 'openapi.json';
export const SITE_FILE = 'index.html';

export function connectorFile(connectorKey: string): string {
  return `connectors/${safeName(connectorKey)}.json`;
}

export function dataTypeFile(connectorKey: string, entity: string): string {
  return `schemas/${safeName(connectorKey)}/${safeName(entity)}.json`;
}

export function inputSchemaFile(connectorKey: string, actionKey: string): string {
  return `schemas/${safeName(connectorKey)}/inputs/${safeName(actionKey)}.json`;
}

/** The JSON Schema of a source's checkpoint, for the diff to tell a changed shape. */
export function checkpointSchemaFile(connectorKey: string, actionKey: string): string {
  return `schemas/${safeName(connectorKey)}/checkpoints/${safeName(actionKey)}.json`;
}

export function typesFile(connectorKey: string): string {
  return `types/${safeName(connectorKey)}.d.ts`;
}

/** Top-level names a catalogue folder owns; a new run replaces exactly these. */
export const OWNED_ENTRIES = ['connectors', 'schemas', 'types', INDEX_FILE, OPENAPI_FILE, SITE_FILE] as const;
