export { generateCatalogue } from './generate.js';
export type { Catalogue, CatalogueOptions, GenerateOptions, GeneratedCatalogue, RecordedExample } from './generate.js';
export type { CatalogueEntry, CatalogueOperation } from './entry.js';
export type { CatalogueFiles } from './write.js';
export { publicConnectorSchema, publicOperationSchema } from './public-connector-schema.js';
export type { JsonObject, Strictness } from './public-connector-schema.js';
export { diffCatalogues } from './diff.js';
export { formatDiff } from './diff/report.js';
export { CatalogueReadError, CatalogueMismatchError } from './diff/snapshot.js';
export type { CatalogueSnapshot } from './diff/snapshot.js';
export { CATALOGUE_RULES } from './diff/rules.js';
export type {
  CatalogueDiff,
  CatalogueChange,
  ChangeKind,
  CatalogueKind,
  BreakingKind,
  AdditionKind,
} from './diff/rules.js';
export { SCHEMA_RULES } from './schema-diff.js';
export type { SchemaChange, SchemaChangeKind, SchemaIo } from './schema-diff.js';
