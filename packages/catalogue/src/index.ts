export { API_VERSION, PUBLIC_CONNECTOR_PATH, defaultPackageName } from './constants.js';
export { generateCatalogue, buildCatalogue, resolveGeneratedAt } from './generate.js';
export type { Catalogue, CatalogueOptions, GenerateOptions, GeneratedCatalogue } from './generate.js';
export { connectorEntry, secretProblems } from './entry.js';
export type { CatalogueEntry, CatalogueOperation, EntryOptions } from './entry.js';
export {
  publicConnectorSchema,
  publicOperationSchema,
  entryProblems,
  assertValidEntry,
  CatalogueValidationError,
} from './public-connector-schema.js';
export type { EntryProblem, JsonObject } from './public-connector-schema.js';
export { schemaParts, schemaFile } from './schemas.js';
export type { Io, SchemaParts } from './schemas.js';
export { typeDeclarations, pascalName } from './types.js';
export type { TypesInput } from './types.js';
export { fieldRows, fieldPaths, typeLabel } from './fields.js';
export type { FieldRow } from './fields.js';
export { openApiDocument } from './openapi.js';
export { renderSite } from './site/page.js';
export type { SiteInput, SiteConnector, SiteDataType, SiteTable } from './site/page.js';
export {
  diffCatalogues,
  diffSnapshots,
  readCatalogue,
  formatDiff,
  CatalogueReadError,
  CatalogueMismatchError,
  CATALOGUE_RULES,
  BREAKING_KINDS,
  ADDITION_KINDS,
} from './diff.js';
export type {
  CatalogueDiff,
  CatalogueChange,
  CatalogueSnapshot,
  ChangeKind,
  CatalogueKind,
  BreakingKind,
  AdditionKind,
} from './diff.js';
export { compareSchemas, SCHEMA_RULES } from './schema-diff.js';
export type { SchemaChange, SchemaChangeKind, SchemaIo } from './schema-diff.js';
export { stableJson, prepareOutDir, writeFiles } from './write.js';
export type { CatalogueFiles } from './write.js';
export {
  connectorFile,
  dataTypeFile,
  inputSchemaFile,
  typesFile,
  INDEX_FILE,
  OPENAPI_FILE,
  SITE_FILE,
} from './paths.js';
