import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { API_VERSION } from './constants.js';

/**
 * `PublicConnector` as the platform spec (version 2026-10-01) states it:
 *
 *   Required: key, name, category, categoryLabel, summary, status (strings);
 *   vendor, documentationUrl (string|null); implemented (boolean); limitations
 *   (array of string); operations (array of {key, label, description|null,
 *   entity|null, mode, approvalRequired: boolean}). Optional: authentication (any).
 *
 * `mode` is how an operation's results come back: `source` yields pages of
 * records, `destination` returns one result, `trigger` is a provider webhook
 * whose deliveries start runs. What the call does to the world
 * is Plugboard's `effect` (a destination may read only). Versioning rule 2
 * lets an answer carry optional fields the spec does not list; Plugboard's are
 * declared here too, typed, so an entry that misspells or mistypes one fails.
 *
 * Two forms: `publicConnectorSchema('open')` is the published contract (unknown
 * optional fields allowed, as the platform may add them); `'strict'` is what
 * every entry this package emits must meet (no field that is not declared).
 */

export type JsonObject = { [key: string]: unknown };
/** How a schema treats fields it does not declare: `'open'` allows them, `'strict'` refuses them. */
export type Strictness = 'open' | 'strict';

const nullableString = { type: ['string', 'null'] } as const;

function closed(strictness: Strictness): { additionalProperties?: false } {
  return strictness === 'strict' ? { additionalProperties: false } : {};
}

const schemaPath = {
  type: 'string',
  pattern: '^schemas/[^/]+/.+\\.json$',
  description: 'Path of a JSON Schema file, relative to the catalogue folder.',
} as const;

export function publicOperationSchema(strictness: Strictness = 'open'): JsonObject {
  return {
    type: 'object',
    title: 'PublicOperation',
    description: 'One operation (action) of a connector.',
    required: ['key', 'label', 'description', 'entity', 'mode', 'approvalRequired'],
    properties: {
      key: { type: 'string', minLength: 1, description: 'Stable operation key, `resource.verb`.' },
      label: { type: 'string', minLength: 1 },
      description: nullableString,
      entity: { ...nullableString, description: 'Name of the data type the operation reads or returns.' },
      mode: {
        type: 'string',
        enum: ['source', 'destination', 'trigger'],
        description:
          '`source` yields pages of records; `destination` returns one result; `trigger` is a provider webhook whose deliveries start runs. See `effect` for what it does.',
      },
      approvalRequired: { type: 'boolean', description: 'A run needs an approval (always or before production).' },
      // Plugboard's optional facts.
      approval: { type: 'string', enum: ['none', 'production', 'always'], description: 'When an approval is needed.' },
      effect: {
        type: 'object',
        required: ['writes', 'idempotent', 'destructive'],
        properties: {
          writes: { type: 'boolean', description: 'Changes something at the provider; false: reads only.' },
          idempotent: { type: 'boolean', description: 'Repeating it with the same input has no further effect.' },
          destructive: { type: 'boolean', description: 'Deletes or overwrites data that was there before.' },
        },
        ...closed(strictness),
        description: 'What the call does to the world.',
      },
      billable: { type: 'boolean', description: "Spends the customer's money or credits." },
      retry: {
        type: 'string',
        enum: ['safe', 'never'],
        description:
          '`never`: a failure is reported, not repeated automatically. Follows from `effect` (reads and idempotent writes are `safe`) and `billable` (`never`) unless the author said otherwise.',
      },
      incremental: {
        type: 'object',
        required: ['cursorField'],
        properties: {
          cursorField: { type: 'string', minLength: 1 },
          checkpointVersion: {
            type: 'integer',
            minimum: 1,
            description:
              'The version of the checkpoint a run keeps; a later one migrates the checkpoints of earlier ones.',
          },
        },
        ...closed(strictness),
        description: 'Reads from a checkpoint on, in the order of the cursor field.',
      },
      rateBudget: {
        type: 'string',
        minLength: 1,
        description: 'Name of the rate budget (see `rateLimits`) the operation draws on.',
      },
      implemented: { type: 'boolean', description: 'False while the operation is declared but not yet implemented.' },
      idempotencyHeader: {
        type: 'string',
        pattern: "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$",
        description:
          "The header in which the provider takes a run's `idempotencyKey` and deduplicates on it: a write whose answer was lost may be run again under the same key.",
      },
      inputSchema: {
        ...schemaPath,
        description: 'JSON Schema of the operation input, relative to the catalogue folder.',
      },
      entitySchema: { ...schemaPath, description: 'JSON Schema of the entity, relative to the catalogue folder.' },
      checkpointSchema: {
        ...schemaPath,
        description: 'JSON Schema of the checkpoint a run keeps, relative to the catalogue folder.',
      },
    },
    ...closed(strictness),
  };
}

const authenticationSchema: JsonObject = {
  type: 'object',
  description: 'How a connection authenticates. Never a credential: the host resolves that from its vault.',
  required: ['schemes', 'baseUrl', 'baseUrlOverridable'],
  properties: {
    schemes: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['id', 'type', 'default', 'supplies'],
        properties: {
          id: { type: 'string', minLength: 1, description: 'What a connection names in settings.authScheme.' },
          type: {
            type: 'string',
            enum: [
              'bearer',
              'api_key_header',
              'api_key_query',
              'basic',
              'oauth2_client_credentials',
              'oauth2_authorization_code',
              'custom',
            ],
          },
          header: { type: 'string', minLength: 1, description: 'Header the credential is sent in.' },
          prefix: { type: 'string', description: 'Written before the credential in the header.' },
          queryParameter: { type: 'string', minLength: 1, description: 'Query parameter the credential is sent in.' },
          tokenUrl: { type: 'string', format: 'uri' },
          authorizeUrl: { type: 'string', format: 'uri' },
          scopes: { type: 'array', items: { type: 'string' } },
          audience: { type: 'string' },
          extraAuthorizeParams: { type: 'object', additionalProperties: { type: 'string' } },
          clientAuthMethod: {
            type: 'string',
            enum: ['header', 'body'],
            description: 'How the OAuth2 client proves itself at the token endpoint.',
          },
          pkce: { type: 'string', enum: ['S256'] },
          default: { type: 'boolean' },
          supplies: {
            type: 'object',
            description: 'JSON Schema of what the host supplies for the scheme; never a value.',
          },
        },
        additionalProperties: false,
      },
    },
    baseUrl: { ...nullableString, format: 'uri' },
    baseUrlOverridable: { type: 'boolean' },
  },
  additionalProperties: false,
};

export function publicConnectorSchema(
  strictness: Strictness = 'open',
  operation: JsonObject = publicOperationSchema(strictness),
): JsonObject {
  return {
    type: 'object',
    title: 'PublicConnector',
    description: `Public catalogue entry of one connector (platform API ${API_VERSION}).`,
    required: [
      'key',
      'name',
      'category',
      'categoryLabel',
      'summary',
      'status',
      'vendor',
      'documentationUrl',
      'implemented',
      'limitations',
      'operations',
    ],
    properties: {
      key: { type: 'string', minLength: 1 },
      name: { type: 'string', minLength: 1 },
      category: { type: 'string', minLength: 1 },
      categoryLabel: { type: 'string', minLength: 1 },
      summary: { type: 'string' },
      status: { type: 'string', minLength: 1 },
      vendor: nullableString,
      documentationUrl: strictness === 'strict' ? { ...nullableString, format: 'uri' } : nullableString,
      implemented: { type: 'boolean', description: 'True only when every declared operation is implemented.' },
      limitations: { type: 'array', items: { type: 'string' } },
      operations: { type: 'array', items: operation },
      authentication:
        strictness === 'strict' ? authenticationSchema : { description: authenticationSchema.description },
      // Plugboard's optional facts.
      package: { type: 'string', minLength: 1, description: 'npm package the connector is published in.' },
      version: { type: 'string', minLength: 1, description: 'Version of the connector package.' },
      rateLimits: {
        type: 'object',
        description: 'Declared rate budgets by name.',
        additionalProperties: {
          type: 'object',
          required: ['limit', 'per', 'scope'],
          properties: {
            limit: { type: 'integer', minimum: 1 },
            per: { type: 'string', enum: ['second', 'minute', 'hour', 'day'] },
            scope: { type: 'string', enum: ['connection', 'connector'] },
          },
          ...closed(strictness),
        },
      },
      dataTypes: {
        type: 'object',
        description: 'JSON Schema file of each data type, by name, relative to the catalogue folder.',
        additionalProperties: schemaPath,
      },
      types: {
        type: 'string',
        pattern: '^types/[^/]+\\.d\\.ts$',
        description: 'TypeScript declarations of the data types and inputs, relative to the catalogue folder.',
      },
    },
    ...closed(strictness),
  };
}

/** One way an entry breaks the schema: the field (a path such as `operations[2].mode`) and what is wrong. */
export interface EntryProblem {
  field: string;
  operation?: string;
  message: string;
}

/** A catalogue entry that does not meet the `PublicConnector` schema; names the connector and each field. */
export class CatalogueValidationError extends Error {
  readonly connector: string;
  readonly problems: readonly EntryProblem[];

  constructor(connector: string, problems: readonly EntryProblem[]) {
    const lines = problems.map(
      (problem) =>
        `field '${problem.field}'${problem.operation ? ` (operation '${problem.operation}')` : ''}: ${problem.message}`,
    );
    super(`catalogue entry of connector '${connector}' is invalid: ${lines.join('; ')}`);
    this.name = 'CatalogueValidationError';
    this.connector = connector;
    this.problems = problems;
  }
}

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

let strictValidator: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!strictValidator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    strictValidator = ajv.compile(publicConnectorSchema('strict'));
  }
  return strictValidator;
}

function fieldOf(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra =
    error.keyword === 'required'
      ? (error.params as { missingProperty: string }).missingProperty
      : error.keyword === 'additionalProperties'
        ? (error.params as { additionalProperty: string }).additionalProperty
        : undefined;
  if (extra !== undefined) segments.push(extra);
  let field = '';
  for (const segment of segments)
    field += /^\d+$/.test(segment) ? `[${segment}]` : field === '' ? segment : `.${segment}`;
  return field === '' ? '(entry)' : field;
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required but missing';
    case 'additionalProperties':
      return 'is not a field of PublicConnector';
    case 'enum':
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'type':
      return `must be of type ${[(error.params as { type: string | string[] }).type].flat().join(' or ')}`;
    default:
      return error.message ?? `breaks '${error.keyword}'`;
  }
}

/** Every problem of an entry against the strict `PublicConnector` schema; empty when it is valid. */
export function entryProblems(entry: unknown): EntryProblem[] {
  const validate = validator();
  if (validate(entry)) return [];
  const operations = (entry as { operations?: unknown }).operations;
  const seen = new Set<string>();
  const problems: EntryProblem[] = [];
  for (const error of validate.errors ?? []) {
    const field = fieldOf(error);
    const message = messageOf(error);
    if (seen.has(`${field}\0${message}`)) continue;
    seen.add(`${field}\0${message}`);
    const index = /^operations\[(\d+)\]/.exec(field)?.[1];
    const operationKey =
      index !== undefined && Array.isArray(operations)
        ? (operations[Number(index)] as { key?: unknown } | undefined)?.key
        : undefined;
    problems.push({ field, ...(typeof operationKey === 'string' ? { operation: operationKey } : {}), message });
  }
  return problems.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/** Throws `CatalogueValidationError`, naming the connector and each field, when the entry breaks the schema. */
export function assertValidEntry(entry: unknown, connectorKey?: string): void {
  const problems = entryProblems(entry);
  if (problems.length === 0) return;
  const key =
    connectorKey ??
    (typeof (entry as { key?: unknown })?.key === 'string' ? (entry as { key: string }).key : '(unknown)');
  throw new CatalogueValidationError(key, problems);
}
