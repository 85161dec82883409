import type { CommandSpec } from './command-spec.js';

export const MOCK: CommandSpec = {
  name: 'mock',
  summary: 'serve a local stand-in for an API from its OpenAPI document',
  description:
    "Serve the API an OpenAPI 3.0 or 3.1 document (JSON or YAML) describes on 127.0.0.1, until interrupted, to record fixtures against before there are credentials: each operation answers its first success response's example, or a sample of its schema, after checking the request (path, method, the credential a secured operation needs, required parameters, the JSON body against its schema; a refusal names the field). A list operation that pages (a cursor, offset or page parameter, a next cursor, next URL or Link header in its answer) serves --records records made from its schema, up to the start of the day (UTC), oldest first (or as its sort direction parameter says), page by page the way the document says, and honours its newer-than and older-than filters; with --grow K, each read of a list after its first finds K newer records, for an incremental second run. The base URL is the address plus the path of the document's first server.",
  arguments: [{ name: '<openapi-file>', description: 'the OpenAPI document' }],
  options: [
    { flags: '--port <n>', description: 'the port (0: a free one)', default: '0' },
    { flags: '--host <address>', description: 'the address to listen on', default: '127.0.0.1' },
    { flags: '--records <n>', description: 'records each paged list operation serves', default: '250' },
    {
      flags: '--grow <k>',
      description: 'records each paged list adds, newer than all, before each read after its first',
      default: '0',
    },
    {
      flags: '--seed <text>',
      description: 'what the records are made from: the same seed, the same records',
      default: '1',
    },
  ],
  examples: [
    'plugboard mock openapi.yaml --port 4010',
    'plugboard mock openapi.yaml --port 4010 --records 250 --grow 5',
    'PLUGBOARD_CREDENTIAL=test-token plugboard record items.list --scenario items-full --base-url http://127.0.0.1:4010/v1',
  ],
  load: async () => (await import('../commands/mock.js')).mockCommand,
};
