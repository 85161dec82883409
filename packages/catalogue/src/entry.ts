import { type Action, type Connector, entityId } from '@plugboard/sdk';
import {
  checkpointDeclaration,
  findSecretKeys,
  formatJsonPath,
  someJsonString,
  catalogueEntry,
  compareText,
  type PublicConnector,
  type PublicOperation,
} from '@plugboard/sdk/host';
import type { z } from 'zod';
import { defaultPackageName } from './constants.js';
import { checkpointSchemaFile, dataTypeFile, inputSchemaFile, typesFile } from './paths.js';
import { sortedRecord } from './write.js';

/**
 * One catalogue entry per connector, built on the SDK's `catalogueEntry`: the
 * spec's fields in the spec's order, then Plugboard's optional facts, to which
 * this package adds the schema references (input and entity per operation, the
 * data types and the declarations of the connector) and the npm package.
 */

export interface CatalogueOperation extends PublicOperation {
  inputSchema?: string;
  entitySchema?: string;
  /** The JSON Schema of the checkpoint a run keeps, when the source checks it. */
  checkpointSchema?: string;
}

export interface CatalogueEntry extends Omit<PublicConnector, 'operations'> {
  operations: CatalogueOperation[];
  package?: string;
  dataTypes?: Record<string, string>;
  types?: string;
}

export interface EntryOptions {
  /** npm package of the connector; default `@plugboard/connector-<key>`. */
  package?: string;
}

function operationEntry(connectorKey: string, operation: PublicOperation, checked: boolean): CatalogueOperation {
  return {
    key: operation.key,
    label: operation.label,
    description: operation.description,
    entity: operation.entity,
    mode: operation.mode,
    approvalRequired: operation.approvalRequired,
    ...(operation.approval === undefined ? {} : { approval: operation.approval }),
    ...(operation.effect === undefined ? {} : { effect: { ...operation.effect } }),
    ...(operation.billable === undefined ? {} : { billable: operation.billable }),
    ...(operation.retry === undefined ? {} : { retry: operation.retry }),
    ...(operation.incremental === undefined ? {} : { incremental: { ...operation.incremental } }),
    ...(operation.rateBudget === undefined ? {} : { rateBudget: operation.rateBudget }),
    ...(operation.implemented === undefined ? {} : { implemented: operation.implemented }),
    ...(operation.idempotencyHeader === undefined ? {} : { idempotencyHeader: operation.idempotencyHeader }),
    // A trigger takes no input: its records come from the provider's deliveries.
    ...(operation.mode === 'trigger' ? {} : { inputSchema: inputSchemaFile(connectorKey, operation.key) }),
    ...(operation.entity === null ? {} : { entitySchema: dataTypeFile(connectorKey, operation.entity) }),
    ...(checked ? { checkpointSchema: checkpointSchemaFile(connectorKey, operation.key) } : {}),
  };
}

/** The schema of a source's checkpoint, when it declares one. */
export function checkpointSchemaOf(action: Action | undefined): z.ZodType | undefined {
  return action?.direction === 'source' ? checkpointDeclaration(action.incremental).schema : undefined;
}

/** The catalogue entry of one connector. */
export function connectorEntry(connector: Connector, options: EntryOptions = {}): CatalogueEntry {
  const base = catalogueEntry(connector);
  const hasDefaultBudget = Object.hasOwn(connector.rateLimits, 'default');
  const operations = [...base.operations]
    .sort((a, b) => compareText(a.key, b.key))
    .map((operation) =>
      // The runtime draws on the `default` budget when an action names none and none is named like it.
      operation.rateBudget === undefined && hasDefaultBudget ? { ...operation, rateBudget: 'default' } : operation,
    )
    .map((operation) =>
      operationEntry(connector.key, operation, checkpointSchemaOf(connector.action(operation.key)) !== undefined),
    );
  const dataTypes: Record<string, string> = {};
  for (const action of [...connector.actions, ...connector.triggers]) {
    const id = entityId(action.entity);
    if (id !== undefined) dataTypes[id] = dataTypeFile(connector.key, id);
  }
  return {
    key: base.key,
    name: base.name,
    category: base.category,
    categoryLabel: base.categoryLabel,
    summary: base.summary,
    status: base.status,
    vendor: base.vendor ?? null,
    documentationUrl: base.documentationUrl ?? null,
    implemented: base.implemented,
    limitations: [...base.limitations],
    operations,
    ...(base.authentication === undefined ? {} : { authentication: base.authentication }),
    package: options.package ?? defaultPackageName(connector.key),
    ...(base.version === undefined ? {} : { version: base.version }),
    ...(base.rateLimits === undefined ? {} : { rateLimits: sortedRecord(base.rateLimits) }),
    dataTypes: sortedRecord(dataTypes),
    types: typesFile(connector.key),
  };
}

const SECRET_VALUE_PATTERNS: readonly RegExp[] = [
  /^(bearer|basic|token)\s+\S+/i,
  /\b(ak|sk|pk|rk|whsec)_(live|test|sandbox)_/i,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, // a JWT
  /\b(gh[pousr]_[A-Za-z0-9]{16,}|xox[abprs]-[A-Za-z0-9-]{10,})/,
];

function strings(value: unknown, root: string): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  someJsonString(value, (text, path, isKey) => void (isKey || found.push([formatJsonPath(path, root), text])));
  return found;
}

/**
 * The description with each scheme's `supplies` left out: that JSON Schema names the parts a
 * host supplies (`password`, `key`) and carries none of them; its values are still checked.
 */
function withoutSupplies(authentication: unknown): unknown {
  const schemes = (authentication as { schemes?: unknown } | null)?.schemes;
  if (!Array.isArray(schemes)) return authentication;
  return {
    ...(authentication as object),
    schemes: schemes.map((scheme) => {
      if (typeof scheme !== 'object' || scheme === null) return scheme;
      const { supplies: _supplies, ...rest } = scheme as Record<string, unknown>;
      return rest;
    }),
  };
}

/**
 * Fields of `authentication` that could carry a secret: a secret-like field
 * name (rule 10's words), a value that looks like a credential, or a URL with
 * user information. Empty when the description is clean.
 */
export function secretProblems(authentication: unknown): string[] {
  const problems = findSecretKeys(withoutSupplies(authentication)).map(
    (path) => `authentication.${path}: a secret-like field name`,
  );
  for (const [path, value] of strings(authentication, 'authentication')) {
    if (SECRET_VALUE_PATTERNS.some((pattern) => pattern.test(value)))
      problems.push(`${path}: the value looks like a credential`);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      try {
        const url = new URL(value);
        if (url.username !== '' || url.password !== '') problems.push(`${path}: the URL carries user information`);
      } catch {
        // not a URL after all
      }
    }
  }
  return problems;
}
