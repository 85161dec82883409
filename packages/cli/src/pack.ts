import type { Connector } from '@plugboard/sdk';

/** The connectors that ship with the CLI, by key. */
export const PACK: ReadonlyMap<string, Connector> = new Map<string, Connector>();
