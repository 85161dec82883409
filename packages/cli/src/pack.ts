import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Connector } from '@plugboard/sdk';
import descript from '@plugboard/connector-descript';
import insurance from '@plugboard/connector-insurance';

/** The connectors that ship with the CLI, by key, and the packages they come from. */
const PACKAGES: ReadonlyArray<[Connector, string]> = [
  [descript, '@plugboard/connector-descript'],
  [insurance, '@plugboard/connector-insurance'],
];

export const PACK: ReadonlyMap<string, Connector> = new Map(PACKAGES.map(([connector]) => [connector.key, connector]));

/** The folder of a pack connector's package, where its `test/fixtures/` live in the repository. */
export function packageFolder(key: string): string | undefined {
  const name = PACKAGES.find(([connector]) => connector.key === key)?.[1];
  return name ? dirname(createRequire(import.meta.url).resolve(`${name}/package.json`)) : undefined;
}
