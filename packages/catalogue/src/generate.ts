import { resolve } from 'node:path';
import { byKey, type Connector, entityId } from '@plugboard/sdk';
import { compareText } from '@plugboard/sdk/host';
import ownPackage from '../package.json' with { type: 'json' };
import { API_VERSION } from './constants.js';
import { type CatalogueEntry, checkpointSchemaOf, connectorEntry, secretProblems } from './entry.js';
import { fieldRows } from './fields.js';
import { withInputOptions } from './input-options.js';
import { openApiDocument } from './openapi.js';
import {
  connectorFile,
  dataTypeFile,
  INDEX_FILE,
  inputSchemaFile,
  checkpointSchemaFile,
  OPENAPI_FILE,
  SITE_FILE,
  typesFile,
} from './paths.js';
import { assertValidEntry, CatalogueValidationError, type JsonObject } from './public-connector-schema.js';
import { DefinitionSet, schemaFile, schemaParts } from './schemas.js';
import { sampleOf } from './sample.js';
import { renderSite, type SiteConnector, type SiteDataType, type SiteExample } from './site/page.js';
import { pascalName, typeDeclarations } from './types.js';
import { type CatalogueFiles, prepareOutDir, stableJson, writeFiles } from './write.js';

export interface CatalogueOptions {
  /** The connectors of the pack: a list, or a map (any key; the connector's own key is used). */
  connectors: Iterable<Connector> | ReadonlyMap<string, Connector>;
  /** npm package of each connector, by connector key; default `@plugboard/connector-<key>`. */
  packages?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  /**
   * Recorded examples by connector key, then action key: an input a run was recorded with and
   * a record it gave, redacted (`recordedExamples(fixturesDir)` of `@plugboard/testing`). An
   * action without one shows examples sampled from its schemas.
   */
  examples?: Readonly<Record<string, Readonly<Record<string, RecordedExample>>>>;
  /** The time written as `generatedAt`; default `SOURCE_DATE_EPOCH` when set, else now. */
  generatedAt?: string | Date;
  /** Where `SOURCE_DATE_EPOCH` is read from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What a recording shows of an action. */
export interface RecordedExample {
  /** The input the run was recorded with. */
  input: unknown;
  /** The first record it gave (a destination's result), redacted. */
  record: unknown;
}

export interface GenerateOptions extends CatalogueOptions {
  outDir: string;
}

export interface Catalogue {
  apiVersion: string;
  generatedAt: string;
  entries: CatalogueEntry[];
  /** Every file of the catalogue folder: relative path -> text. */
  files: CatalogueFiles;
}

export interface GeneratedCatalogue extends Catalogue {
  outDir: string;
  /** Relative paths written, sorted. */
  written: string[];
}

/** `generatedAt` as ISO 8601: given, else from `SOURCE_DATE_EPOCH` (seconds since the epoch), else now. */
export function resolveGeneratedAt(
  given: string | Date | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (given instanceof Date) return given.toISOString();
  if (typeof given === 'string') {
    const date = new Date(given);
    if (Number.isNaN(date.getTime())) throw new Error(`generatedAt is not a date: ${JSON.stringify(given)}`);
    return date.toISOString();
  }
  const epoch = env.SOURCE_DATE_EPOCH?.trim();
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d+$/.test(epoch))
      throw new Error(`SOURCE_DATE_EPOCH must be a whole number of seconds, not ${JSON.stringify(epoch)}`);
    return new Date(Number(epoch) * 1000).toISOString();
  }
  return new Date().toISOString();
}

function connectorList(connectors: CatalogueOptions['connectors']): Connector[] {
  const list = connectors instanceof Map ? [...connectors.values()] : [...(connectors as Iterable<Connector>)];
  const sorted = list.sort((a, b) => compareText(a.key, b.key));
  for (let index = 1; index < sorted.length; index += 1) {
    if (sorted[index]?.key === sorted[index - 1]?.key)
      throw new Error(`connector '${sorted[index]?.key}' is in the pack twice`);
  }
  return sorted;
}

function packageOf(packages: CatalogueOptions['packages'], key: string): string | undefined {
  if (!packages) return undefined;
  return packages instanceof Map ? packages.get(key) : (packages as Readonly<Record<string, string>>)[key];
}

interface ConnectorOutput {
  entry: CatalogueEntry;
  files: Array<[string, string]>;
  site: SiteConnector;
}

async function connectorOutput(
  connector: Connector,
  packageName: string | undefined,
  recorded: Readonly<Record<string, RecordedExample>> = {},
): Promise<ConnectorOutput> {
  const entry = connectorEntry(connector, packageName === undefined ? {} : { package: packageName });
  const leaks = secretProblems(entry.authentication);
  if (leaks.length > 0) {
    throw new CatalogueValidationError(
      connector.key,
      leaks.map((leak) => ({ field: leak.slice(0, leak.indexOf(':')), message: leak.slice(leak.indexOf(':') + 2) })),
    );
  }
  assertValidEntry(entry, connector.key);

  const files: Array<[string, string]> = [[connectorFile(connector.key), stableJson(entry)]];
  const definitions = new DefinitionSet();
  const dataTypeNames = new Map<string, string>();
  const inputNames = new Map<string, string>();
  const siteTypes: SiteDataType[] = [];
  const nestedTypes = new Map<string, SiteDataType>();
  const inputs: Record<string, ReturnType<typeof fieldRows>> = {};
  const examples: Record<string, SiteExample> = {};
  const entityFiles = new Map<string, JsonObject>();

  const entities = new Map<string, Connector['actions'][number]['entity']>();
  const declared = [...connector.actions, ...connector.triggers];
  for (const action of declared.sort((a, b) => compareText(a.key, b.key))) {
    const id = entityId(action.entity);
    if (id !== undefined && !entities.has(id)) entities.set(id, action.entity);
  }
  for (const [id, schema] of [...entities].sort(byKey)) {
    const parts = schemaParts(schema, 'output');
    const file = schemaFile(parts, id);
    const path = dataTypeFile(connector.key, id);
    files.push([path, stableJson(file)]);
    entityFiles.set(id, file);
    dataTypeNames.set(id, definitions.add(parts, id, 'Output'));
    siteTypes.push({
      name: id,
      file: path,
      nested: false,
      tables: [
        {
          name: id,
          description: typeof file.description === 'string' ? file.description : null,
          rows: fieldRows(file),
        },
      ],
    });
    for (const [name, def] of Object.entries((file.$defs ?? {}) as Record<string, JsonObject>)) {
      if (entities.has(name) || nestedTypes.has(name)) continue;
      nestedTypes.set(name, {
        name,
        file: path,
        nested: true,
        tables: [
          {
            name,
            description: typeof def.description === 'string' ? def.description : null,
            rows: fieldRows(file, def),
          },
        ],
      });
    }
  }
  for (const action of [...connector.actions].sort((a, b) => compareText(a.key, b.key))) {
    const name = `${pascalName(action.key)}Input`;
    const parts = schemaParts(action.input, 'input');
    const file = withInputOptions(schemaFile(parts, name), action);
    files.push([inputSchemaFile(connector.key, action.key), stableJson(file)]);
    inputNames.set(action.key, definitions.add(parts, name, 'Input'));
    inputs[action.key] = fieldRows(file, file, { follow: true });
    const checkpoint = checkpointSchemaOf(action);
    if (checkpoint) {
      const file = schemaFile(schemaParts(checkpoint, 'output'), `${pascalName(action.key)}Checkpoint`);
      files.push([checkpointSchemaFile(connector.key, action.key), stableJson(file)]);
    }
    const entity = entityId(action.entity);
    const example = Object.hasOwn(recorded, action.key) ? recorded[action.key] : undefined;
    examples[action.key] = example
      ? { input: example.input, record: entity === undefined ? null : example.record, recorded: true }
      : {
          input: sampleOf(file, { requiredOnly: true }),
          record: entity === undefined ? null : sampleOf(entityFiles.get(entity)),
          recorded: false,
        };
  }
  const declarations = await typeDeclarations({
    connectorKey: connector.key,
    connectorName: connector.name,
    defs: definitions.defs,
    dataTypes: dataTypeNames,
    inputs: inputNames,
  });
  files.push([typesFile(connector.key), declarations]);
  const dataTypes = [...siteTypes, ...[...nestedTypes.values()].sort((a, b) => compareText(a.name, b.name))];
  return { entry, files, site: { entry, dataTypes, inputs, examples } };
}

/** Builds the whole catalogue in memory: every file, and the entries (each validated). */
export async function buildCatalogue(options: CatalogueOptions): Promise<Catalogue> {
  const generatedAt = resolveGeneratedAt(options.generatedAt, options.env);
  const connectors = connectorList(options.connectors);
  const outputs = await Promise.all(
    connectors.map((connector) =>
      connectorOutput(
        connector,
        packageOf(options.packages, connector.key),
        options.examples && Object.hasOwn(options.examples, connector.key)
          ? options.examples[connector.key]
          : undefined,
      ),
    ),
  );
  const entries = outputs.map((output) => output.entry);
  const files = new Map<string, string>(outputs.flatMap((output) => output.files));
  files.set(
    INDEX_FILE,
    stableJson({
      apiVersion: API_VERSION,
      generatedAt,
      generator: { name: ownPackage.name, version: ownPackage.version },
      count: entries.length,
      connectors: entries,
    }),
  );
  files.set(OPENAPI_FILE, stableJson(openApiDocument(entries)));
  files.set(SITE_FILE, renderSite({ generatedAt, connectors: outputs.map((output) => output.site) }));
  const sorted = new Map([...files].sort(byKey));
  return { apiVersion: API_VERSION, generatedAt, entries, files: sorted };
}

/** Builds the catalogue and writes it into `outDir` (replacing an earlier catalogue there). */
export async function generateCatalogue(options: GenerateOptions): Promise<GeneratedCatalogue> {
  const catalogue = await buildCatalogue(options);
  const outDir = resolve(options.outDir);
  await prepareOutDir(outDir);
  const written = await writeFiles(outDir, catalogue.files);
  return { ...catalogue, outDir, written };
}
