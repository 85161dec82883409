import {
  type Method,
  type OpenApiDocument,
  OpenApiDocumentError,
  type Operation,
  operationsOf,
  type Parameter,
  pointerTo,
  type Schema,
  unusableIn,
} from './openapi-document.js';
import { type Listing, pagedReadSource, sharedListing, unpagedNote } from './openapi-listing.js';
import { recordsOf } from './list-records.js';
import { type DeclaredPaging, detectPaging } from './openapi-paging.js';
import { didYouMean, nearest } from './did-you-mean.js';
import { assignKeys, derivedKey, words } from './openapi-keys.js';
import { UsageError } from './usage.js';
import { propertyKey, zodSource } from './zod-source.js';

/**
 * Action files of a connector from operations of an OpenAPI document: one file per operation,
 * the declarative definition first (key, direction, the zod schemas of its input and data
 * type) and a short `read` or `write`. A GET is a source, anything else a destination. A
 * list declares the paginator its document describes (openapi-paging.ts) and reads every page
 * with `ctx.pages`, from a checkpoint on where it can; billing and approval are the author's to
 * add, and each file says so where it matters, as it does a list whose paging was not found.
 */

export interface GeneratedAction {
  /** The action key, `resource.verb`. */
  key: string;
  /** Its export name, e.g. `itemsList`. */
  name: string;
  /** `src/actions/<key>.ts`. */
  file: string;
  source: string;
  direction: 'source' | 'destination';
  operationId: string;
  /** `method path` (`get /files/{file_id}`): the operation in the document. */
  operation: string;
  /** The JSON Schema of its input, for an example to record with. */
  inputSchema: Schema;
  /** A source read from a checkpoint on: it is recorded twice, the second run from the first's checkpoint. */
  incremental: boolean;
}

export interface GeneratedConnector {
  actions: GeneratedAction[];
  /** `src/entities.ts`: the named data types. */
  entities: string;
  /** `src/listing.ts`: the paginators several sources share, when some do. */
  listing?: string;
}

const camel = (text: string) =>
  words(text)
    .map((word, index) => (index === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('');
const pascal = (text: string) =>
  words(text)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

function jsonContent<T>(content: Record<string, T> | undefined): { type: string; media: T } | undefined {
  if (!content) return undefined;
  const type = Object.keys(content).find((name) => /^application\/(.+\+)?json\b/.test(name));
  return type === undefined ? undefined : { type, media: content[type]! };
}

/** The first success answer's JSON schema, where it lies in the document as written, and the headers it declares. */
function successSchema(
  path: string,
  method: Method,
  operation: Operation,
): { schema: Schema | undefined; at: string[]; headers: string[] } {
  const status = Object.keys(operation.responses ?? {})
    .filter((code) => /^2\d\d$/.test(code))
    .sort()[0];
  const response = status === undefined ? undefined : operation.responses?.[status];
  const content = jsonContent(response?.content);
  return {
    schema: content?.media.schema,
    at: ['paths', path, method, 'responses', status ?? '', 'content', content?.type ?? '', 'schema'],
    headers: Object.keys(response?.headers ?? {}),
  };
}

/** The name of the component a value at `at` in the document as written is, if it is one rather than part of one. */
function refName(document: OpenApiDocument, at: string[], schema: Schema | undefined): string | undefined {
  const found = /^#\/components\/schemas\/([^/]+)$/.exec(pointerTo(document.source, at) ?? '');
  if (found) return decodeURIComponent(found[1]!.replace(/~1/g, '/').replace(/~0/g, '~'));
  // A record inside an `allOf` part has no path of its own: the component it is, by identity once resolved.
  return schema === undefined
    ? undefined
    : Object.entries(document.components?.schemas ?? {}).find(([, component]) => component === schema)?.[0];
}

/** `projects` → `project`: the last word of a resource as one record of it, for a data type's name. */
function singular(resource: string): string {
  return resource
    .replace(/ies$/, 'y')
    .replace(/(ss|x|ch|sh)es$/, '$1')
    .replace(/([^su])s$/, '$1');
}

/**
 * The data types of the actions, once each: a record is named after its component in the
 * document (`Team`, not `TeamResponse`), else after the resource it is one of (`Project` for
 * `projects.list`); an answer of a destination that is no record after what it did
 * (`ProjectMediaImportResult`). The same schema met again is the same type; a different one of a
 * name already taken is the `Detail` of a read by id, or takes its verb.
 */
class DataTypes {
  private readonly byText = new Map<string, string>();
  private readonly lines = new Map<string, string>();

  name(schema: Schema | undefined, component: string | undefined, key: string, record: boolean): string {
    const text = zodSource(schema, { loose: true });
    const known = this.byText.get(text);
    if (known) return known;
    const [resource = '', verb = ''] = key.split('.');
    // A component's name is the document's to choose: one that is no identifier (`2fa_status`) starts with `Type`.
    const named = pascal(component?.replace(/(.)Response$/, '$1') ?? '').replace(/^(?=\d)/, 'Type');
    const base = named || (record ? pascal(singular(resource)) : `${pascal(key)}Result`);
    const candidates = [base, `${base}${verb === 'get' ? 'Detail' : pascal(verb)}`];
    let name = candidates.find((candidate) => !this.lines.has(candidate));
    for (let n = 2; name === undefined; n += 1) if (!this.lines.has(`${base}${n}`)) name = `${base}${n}`;
    this.byText.set(text, name);
    this.lines.set(name, `export const ${name} = ${text}.meta({ id: ${JSON.stringify(name)} });`);
    return name;
  }

  source(): string {
    return [
      "import { z } from 'zod';",
      '',
      '/** The data types of the actions, from the OpenAPI document: loose objects, as the provider may add fields. */',
      '',
      ...[...this.lines.values()].flatMap((line) => [line, '']),
    ].join('\n');
  }
}

const ENDS = new Set(['delete', 'remove', 'cancel', 'archive', 'revoke', 'destroy', 'purge', 'void', 'close', 'stop']);
const CHANGES = new Set(['update', 'edit', 'set', 'modify', 'rename', 'move', 'patch', 'change', 'replace', 'reset']);

const BILLABLE_TODO = [
  "  // TODO billable: add `billable: true` if this call spends the customer's money or credits (never retried,",
  '  // approved before production); delete this comment once decided.',
];

/**
 * The effect of an operation, as declaration lines: GET (and HEAD, OPTIONS) reads; the others
 * write. The method says what a write does (PUT replaces, PATCH updates, DELETE deletes, POST
 * creates) unless the operation's own verb says more of a POST (`cancelJob` ends something,
 * `renameItem` changes it). PUT and DELETE are idempotent by HTTP's rules. Retries follow from
 * the effect, so the generated action says nothing of them; whether it costs money is the author's
 * to say.
 */
function effectLines(method: Method, verb: string | undefined): string[] {
  if (method === 'get' || method === 'head' || method === 'options') return ["  effect: 'read',"];
  const does =
    method === 'put'
      ? 'replace'
      : method === 'patch'
        ? 'update'
        : method === 'delete' || (verb !== undefined && ENDS.has(verb))
          ? 'delete'
          : verb !== undefined && CHANGES.has(verb)
            ? 'update'
            : 'create';
  const lines: Record<typeof does, string[]> = {
    create: [
      '  // Creates: sent once, as a retry could do it twice.',
      '  effect: { writes: true, idempotent: false, destructive: false },',
    ],
    replace: [
      '  // Replaces what was there: repeating it leaves the same state, so it is safe to retry.',
      '  effect: { writes: true, idempotent: true, destructive: true },',
    ],
    update: [
      '  // Updates what is there, and may depend on it: sent once.',
      '  effect: { writes: true, idempotent: false, destructive: true },',
    ],
    delete:
      method === 'delete'
        ? [
            '  // Deletes: repeating it leaves the same state, so it is safe to retry.',
            '  effect: { writes: true, idempotent: true, destructive: true },',
          ]
        : [
            '  // Deletes or ends something, by a POST: sent once.',
            '  effect: { writes: true, idempotent: false, destructive: true },',
          ],
  };
  return [...lines[does], ...BILLABLE_TODO];
}

function inputSchema(
  parameters: Parameter[],
  body: Schema | undefined,
): { schema: Schema; bodyKeys: string[]; bodyField: string | undefined } {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    if (parameter.in === 'cookie' || parameter.in === 'header') continue;
    properties[parameter.name] = parameter.schema ?? { type: 'string' };
    if (parameter.required || parameter.in === 'path') required.push(parameter.name);
  }
  const bodyProperties = (body?.properties ?? {}) as Record<string, Schema>;
  const collides = Object.keys(bodyProperties).some((name) => name in properties);
  if (body && body.type === 'object' && !collides && Object.keys(bodyProperties).length > 0) {
    Object.assign(properties, bodyProperties);
    required.push(...((body.required as string[] | undefined) ?? []));
    return {
      schema: { type: 'object', properties, required },
      bodyKeys: Object.keys(bodyProperties),
      bodyField: undefined,
    };
  }
  // A body that is not a plain object of its own fields travels as `body`.
  if (body) {
    properties.body = body;
    required.push('body');
  }
  return { schema: { type: 'object', properties, required }, bodyKeys: [], bodyField: body ? 'body' : undefined };
}

function comment(text: string | undefined): string {
  return text ? text.replace(/\*\//g, '* /').replace(/\s+/g, ' ').trim().slice(0, 300) : '';
}

/** An operation to generate an action for: its operationId (or `METHOD /path` when it has none), and the key the author gives it. */
export interface OperationChoice {
  operation: string;
  key?: string;
}

/** The operations chosen, found in the document; an unknown name is refused with the nearest the document has. */
function chosenOperations(document: OpenApiDocument, choices: readonly OperationChoice[]) {
  const byName = new Map<string, ReturnType<typeof operationsOf>[number]>();
  for (const entry of operationsOf(document)) {
    if (entry.operation.operationId) byName.set(entry.operation.operationId, entry);
    byName.set(`${entry.method.toUpperCase()} ${entry.path}`, entry);
  }
  const named = (choice: OperationChoice) => {
    const [method = '', ...path] = choice.operation.split(' ');
    return byName.has(choice.operation) ? choice.operation : `${method.toUpperCase()} ${path.join(' ')}`;
  };
  const unknown = choices.filter((choice) => !byName.has(named(choice))).map(({ operation }) => operation);
  if (unknown.length > 0) {
    const ids = [...byName.keys()].filter((name) => !/^[A-Z]+ \//.test(name)).sort();
    const near = (name: string) => didYouMean(name, byName.keys()).replace(/^; /, '');
    throw new UsageError(
      `--operations: no operation ${unknown.map((name) => `'${name}'${nearest(name, byName.keys()) ? ` (${near(name)})` : ''}`).join(', ')} in the document; it has ${ids.slice(0, 60).join(', ')}${ids.length > 60 ? ` and ${ids.length - 60} more` : ''}`,
    );
  }
  if (choices.length === 0)
    throw new UsageError('--operations: name at least one operationId of the document, comma-separated');
  return choices.map((choice) => ({ choice, ...byName.get(named(choice))! }));
}

/** The chosen operations with their keys, where their records are, and how the lists page. */
function plannedActions(document: OpenApiDocument, choices: readonly OperationChoice[]) {
  const found = chosenOperations(document, choices).map(({ choice, path, method, operation, parameters }) => {
    const unusable = unusableIn(document, { operation, parameters });
    if (unusable)
      throw new OpenApiDocumentError(
        `--operations: ${choice.operation} needs what cannot be used: ${unusable.pointer}: ${unusable.message}`,
      );
    const answer = successSchema(path, method, operation);
    const records = recordsOf(answer.schema, path);
    const derived = derivedKey({ operationId: operation.operationId, path, method, list: records.many });
    return { name: choice.operation, key: choice.key, derived, path, method, operation, parameters, answer, records };
  });
  return assignKeys(found).map((entry) => ({
    ...entry,
    id: entry.operation.operationId ?? entry.name,
    paging:
      entry.method === 'get' && entry.records.many
        ? detectPaging({
            path: entry.path,
            parameters: entry.parameters,
            answer: entry.answer.schema,
            headers: entry.answer.headers,
          })
        : undefined,
  }));
}

type PlannedAction = ReturnType<typeof plannedActions>[number];

export function generateActions(document: OpenApiDocument, choices: readonly OperationChoice[]): GeneratedConnector {
  const planned = plannedActions(document, choices);
  const listing = sharedListing(planned.flatMap(({ key, paging }) => (paging ? [{ key, paging }] : [])));
  const types = new DataTypes();
  const actions = planned.map((action) => generatedAction(document, action, listing, types));
  return { actions, entities: types.source(), ...(listing.source ? { listing: listing.source } : {}) };
}

/** The request an action sends, as source text: where to, with which query and body taken from the input. */
function requestSource(parameters: Parameter[], operation: Operation, method: Method, path: string) {
  const body = jsonContent(operation.requestBody?.content)?.media.schema;
  const input = inputSchema(parameters, body);
  const pathParams = parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
  const queryParams = parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
  const from = (names: string[], wrap: (value: string, param: string) => string = (value) => value) =>
    `{ ${names.map((param) => `${propertyKey(param)}: ${wrap(`input[${JSON.stringify(param)}]`, param)}`).join(', ')} }`;
  const primitive = (param: string) => {
    const schema = (parameters.find((parameter) => parameter.name === param)?.schema ?? {}) as Schema;
    const items = (schema.items ?? {}) as Schema;
    return (
      ['string', 'integer', 'number', 'boolean'].includes(String(schema.type)) ||
      (schema.type === 'array' && ['string', 'integer', 'number', 'boolean'].includes(String(items.type)))
    );
  };
  const target = [
    `method: ${JSON.stringify(method.toUpperCase())}`,
    `path: ${JSON.stringify(path)}`,
    ...(pathParams.length ? [`params: ${from(pathParams, (value) => `String(${value})`)}`] : []),
  ];
  // A query value that is not a plain value or list of them goes as JSON text.
  const queryEntry = (param: string) =>
    `${propertyKey(param)}: ${primitive(param) ? `input[${JSON.stringify(param)}]` : `(input[${JSON.stringify(param)}] === undefined ? undefined : JSON.stringify(input[${JSON.stringify(param)}]))`}`;
  const request = [
    ...target,
    ...(queryParams.length ? [`query: { ${queryParams.map(queryEntry).join(', ')} }`] : []),
    ...(input.bodyField ? ['json: input.body'] : input.bodyKeys.length ? [`json: ${from(input.bodyKeys)}`] : []),
  ].join(', ');
  return { input, target, queryParams, queryEntry, request };
}

/** One action file: its declaration, and a `read` of every page, a `read` of one answer, or a `write`. */
function generatedAction(
  document: OpenApiDocument,
  planned: PlannedAction,
  listing: Listing,
  types: DataTypes,
): GeneratedAction {
  const { id, path, method, operation, parameters: declared, answer, records: found, key, paging } = planned;
  const name = camel(key);
  const direction = method === 'get' ? 'source' : 'destination';
  // What a destination answers is one thing, whatever it holds.
  const records =
    direction === 'destination' && found.many ? { property: undefined, item: answer.schema, many: false } : found;
  const paged = paging?.paginator ? { ...paging, paginator: paging.paginator } : undefined;
  const parameters = paged ? pagedParameters(declared, paged) : declared;
  const entityAt = [
    ...answer.at,
    ...(records.property === undefined ? [] : ['properties', records.property]),
    ...(records.many ? ['items'] : []),
  ];
  const entityName = types.name(
    records.item,
    refName(document, entityAt, records.item),
    key,
    direction === 'source' || records.property !== undefined,
  );
  // The answer as the entity in its envelope: the record's type is written once, in src/entities.ts.
  const listOf = records.many ? `z.array(${entityName})` : entityName;
  const answerType =
    records.property === undefined ? listOf : `z.looseObject({ ${propertyKey(records.property)}: ${listOf} })`;
  const unwrap = records.property === undefined ? '' : `[${JSON.stringify(records.property)}]`;
  const { input, target, queryParams, queryEntry, request } = requestSource(parameters, operation, method, path);
  const read = paged
    ? pagedReadSource({
        paging: paged,
        listing,
        entity: entityName,
        request: target.join(', '),
        query: queryParams
          .filter((param) => param !== paged.pageSize?.param && param !== paged.incremental?.query)
          .map(queryEntry),
      })
    : undefined;
  const call = `ctx.http.request<z.input<typeof ${answerType === entityName ? entityName : 'Answer'}>>({ ${request} })`;
  const summary = comment(operation.summary ?? operation.description) || `${method.toUpperCase()} ${path}`;
  const lines = [
    `import { ${['defineAction', ...(read?.sdk ?? [])].sort().join(', ')} } from '@plugboard/sdk';`,
    "import { z } from 'zod';",
    `import { ${entityName} } from '../entities.js';`,
    ...(read?.imports ?? []),
    '',
    ...(!read && answerType !== entityName ? [`const Answer = ${answerType};`, ''] : []),
    `/** ${method.toUpperCase()} ${path} (${id}). */`,
    `export const ${name} = defineAction({`,
    `  key: ${JSON.stringify(key)},`,
    `  label: ${JSON.stringify(comment(operation.summary) || key)},`,
    `  description: ${JSON.stringify(summary)},`,
    `  direction: ${JSON.stringify(direction)},`,
    ...effectLines(method, operation.operationId ? words(operation.operationId)[0] : undefined),
    `  entity: ${entityName},`,
    `  input: ${zodSource(input.schema, { loose: false })},`,
    ...(read
      ? read.lines
      : direction === 'source'
        ? [
            '  async *read(ctx, input) {',
            ...(paging ? unpagedNote(paging.summary) : []),
            `    const answer = await ${call};`,
            `    yield { records: ${records.many ? `answer.data${unwrap}${unwrap ? ' ?? []' : ''}` : `[answer.data${unwrap}]`} };`,
            '  },',
          ]
        : ['  async write(ctx, input) {', `    return (await ${call}).data${unwrap};`, '  },']),
    '});',
    '',
  ];
  return {
    key,
    name,
    file: `src/actions/${key}.ts`,
    source: lines.join('\n'),
    direction,
    operationId: id,
    operation: `${method} ${path}`,
    inputSchema: input.schema,
    incremental: paged?.incremental !== undefined,
  };
}

const INSTANT = {
  iso: 'an ISO 8601 instant',
  unix: 'seconds since the epoch',
  'unix-ms': 'milliseconds since the epoch',
};

/**
 * The parameters a paged source takes as input: those the paginator sends are left to it, and so
 * is the order an incremental read asks for; the page size defaults to the most the document
 * allows, and the newer-than filter says where a first run starts.
 */
function pagedParameters(parameters: Parameter[], paging: DeclaredPaging): Parameter[] {
  const { incremental, pageSize, driven } = paging;
  const left = new Set([...driven, ...Object.keys(incremental?.sort ?? {})]);
  return parameters
    .filter((parameter) => parameter.in !== 'query' || !left.has(parameter.name))
    .map((parameter) => {
      if (parameter.in !== 'query') return parameter;
      if (parameter.name === incremental?.query)
        return {
          ...parameter,
          schema: {
            ...parameter.schema,
            description: `Where the first run starts (${INSTANT[incremental.format]}); later runs start at their checkpoint`,
          },
        };
      if (parameter.name === pageSize?.param && pageSize.value !== undefined)
        return {
          ...parameter,
          schema: {
            ...parameter.schema,
            description: `Records per request (default ${pageSize.value}); every page is read`,
          },
        };
      return parameter;
    });
}
