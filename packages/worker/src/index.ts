export { postgresCredentialStore } from './credentials.js';
export type { PostgresCredentialStoreOptions } from './credentials.js';
export {
  CredentialUnreadableError,
  DatabaseUnavailableError,
  SchemaVersionError,
  StoreValueTooLargeError,
} from './errors.js';
export { LIMITS } from './limits.js';
export { assertMigrated, migrate } from './migrations.js';
export type { Migration, MigrationReport } from './migrations.js';
export { postgresStores } from './stores.js';
