export { generateCatalogue } from './generate.js';
export type { Catalogue, CatalogueOptions, GenerateOptions, GeneratedCatalogue, RecordedExample } from './generate.js';
export type { CatalogueEntry, CatalogueOperation } from './entry.js';
export type { CatalogueFiles } from './write.js';
export { publicConnectorSchema, publicOperationSchema } from './public-connector-schema.js';
export type { JsonObject } from './public-connector-schema.js';
export { diffCatalogues, formatDiff, CatalogueReadError, CatalogueMismatchError, CATALOGUE_RULES } from './diff.js';
export type {
  CatalogueDiff,
  CatalogueChange,
  CatalogueSnapshot,
  ChangeKind,
  CatalogueKind,
  BreakingKind,
  AdditionKind,
} from './diff.js';
export { SCHEMA_RULES } from './schema-diff.js';
export type { SchemaChange, SchemaChangeKind, SchemaIo } from './schema-diff.js';
