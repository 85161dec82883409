/** The dated version of the platform API the catalogue follows (spec, Versioning rule 1). */
export const API_VERSION = '2026-10-01';

/** The public endpoint that answers one catalogue entry (no token). */
export const PUBLIC_CONNECTOR_PATH = '/api/public/connect/connectors/{connectorKey}';

/** The npm package a connector is published in, unless the caller names another. */
export function defaultPackageName(connectorKey: string): string {
  return `@plugboard/connector-${connectorKey}`;
}
