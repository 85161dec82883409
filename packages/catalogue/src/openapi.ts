import { API_VERSION, PUBLIC_CONNECTOR_PATH } from './constants.js';
import type { CatalogueEntry } from './entry.js';
import { connectorFile } from './paths.js';
import { type JsonObject, publicConnectorSchema, publicOperationSchema } from './public-connector-schema.js';

/**
 * The machine-readable description the spec's Catalogue area promises: an
 * OpenAPI 3.1 document of the public endpoint that answers one connector's
 * entry, with the `PublicConnector` schema (the open form: the platform may
 * add optional fields) and the platform's Error shape.
 */

const ERROR_SCHEMA: JsonObject = {
  type: 'object',
  title: 'Error',
  required: ['error', 'message', 'statusCode', 'requestId', 'path'],
  properties: {
    error: {
      type: 'string',
      enum: ['request_failed', 'internal_server_error'],
      description: '`request_failed` for 4xx, `internal_server_error` for 5xx.',
    },
    message: { type: 'string' },
    statusCode: { type: 'integer' },
    requestId: { type: 'string', description: 'Same as the `X-Request-ID` header.' },
    path: { type: 'string' },
    code: { type: 'string', description: 'Stable machine-readable reason, present where one exists.' },
  },
};

function errorResponse(description: string, extraHeaders: JsonObject = {}): JsonObject {
  return {
    description,
    headers: { 'X-Request-ID': { $ref: '#/components/headers/X-Request-ID' }, ...extraHeaders },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

export function openApiDocument(entries: readonly CatalogueEntry[]): JsonObject {
  const examples = Object.fromEntries(
    entries.map((entry) => [entry.key, { summary: entry.name, externalValue: connectorFile(entry.key) }]),
  );
  return {
    openapi: '3.1.1',
    info: {
      title: 'Workspace integration platform: public connector catalogue',
      version: API_VERSION,
      description:
        'Public connector catalogue of the workspace integration platform. Public operations need no token. ' +
        'Adding an operation or an optional field is not a breaking change; a breaking change gets a new dated version.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [{ name: 'Catalogue', description: 'Public connector catalogue. No sign-in.' }],
    paths: {
      [PUBLIC_CONNECTOR_PATH]: {
        get: {
          operationId: 'getPublicConnector',
          summary: 'One connector of the public catalogue',
          tags: ['Catalogue'],
          security: [],
          parameters: [
            {
              name: 'connectorKey',
              in: 'path',
              required: true,
              description: 'Stable key of the connector.',
              schema: { type: 'string', pattern: '^[a-z][a-z0-9_-]*$' },
              ...(entries.length > 0
                ? { examples: Object.fromEntries(entries.map((entry) => [entry.key, { value: entry.key }])) }
                : {}),
            },
          ],
          responses: {
            '200': {
              description: 'The catalogue entry of the connector.',
              headers: { 'X-Request-ID': { $ref: '#/components/headers/X-Request-ID' } },
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/PublicConnector' },
                  ...(entries.length > 0 ? { examples } : {}),
                },
              },
            },
            '404': errorResponse('No connector has this key.'),
            '429': errorResponse('Too many requests; wait the number of seconds in `Retry-After`, then retry.', {
              'Retry-After': {
                description: 'Seconds to wait before retrying.',
                schema: { type: 'integer', minimum: 0 },
              },
            }),
            '500': errorResponse('The platform could not complete the request; safe to retry.'),
            '503': errorResponse('A needed service is switched off or busy; retry later.'),
          },
        },
      },
    },
    components: {
      schemas: {
        PublicConnector: publicConnectorSchema('open', { $ref: '#/components/schemas/PublicOperation' }),
        PublicOperation: publicOperationSchema('open'),
        Error: ERROR_SCHEMA,
      },
      headers: {
        'X-Request-ID': {
          description: 'Identifier of the request, the same as `requestId` in an error.',
          schema: { type: 'string' },
        },
      },
    },
  };
}
