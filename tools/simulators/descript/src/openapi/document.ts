import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { parse } from 'yaml';
import { SchemaConverter, isObject } from './convert.js';
import { describeViolation } from './violations.js';

/**
 * The provider's OpenAPI document as a validator: of requests a connector sends (so a bug
 * shows up as a failed request) and of responses it receives (for conformance tests).
 */

export interface RequestToCheck {
  method: string;
  /** Path as sent, with or without the document's base path (`/v1`). */
  path: string;
  query?: URLSearchParams | Record<string, string | readonly string[] | undefined>;
  /** Parsed JSON body; undefined when the request has none. */
  body?: unknown;
}

export interface OpenApiDocument {
  /** `info.version`, e.g. "1.2". */
  readonly apiVersion: string;
  /** Path of the first server URL, e.g. "/v1". */
  readonly basePath: string;
  /** How a request breaks the document; empty when it conforms. */
  validateRequest(request: RequestToCheck): string[];
  /** How a response breaks the document; empty when it conforms. JSON bodies may be given parsed or as text. */
  validateResponse(
    method: string,
    path: string,
    status: number,
    contentType: string | undefined,
    body: unknown,
  ): string[];
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  /** The document's schema object: its identity keys the compiled validator. */
  schema: unknown;
  /** The same schema as JSON Schema, to read its type when coercing query text. */
  jsonSchema: unknown;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  pathNames: string[];
  literalSegments: number;
  parameters: Parameter[];
  definition: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
// ajv-formats is CommonJS; depending on the loader its plugin is the module or its default export.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as unknown as (
  ajv: Ajv,
) => Ajv;

export function loadOpenApi(path: string): OpenApiDocument {
  const document: unknown = parse(readFileSync(path, 'utf8'));
  if (!isObject(document) || !isObject(document['paths'])) throw new Error(`${path} is not an OpenAPI document`);
  return new CompiledDocument(document);
}

class CompiledDocument implements OpenApiDocument {
  readonly apiVersion: string;
  readonly basePath: string;
  private readonly converter: SchemaConverter;
  private readonly operations: Operation[] = [];
  private readonly ajv = new Ajv({ strict: false, allErrors: false, logger: false });
  private readonly compiled = new Map<unknown, ValidateFunction>();

  constructor(document: Record<string, unknown>) {
    addFormats(this.ajv);
    this.converter = new SchemaConverter(document);
    const info = isObject(document['info']) ? document['info'] : {};
    this.apiVersion = String(info['version'] ?? '');
    const servers = Array.isArray(document['servers']) ? document['servers'] : [];
    const serverUrl = isObject(servers[0]) && typeof servers[0]['url'] === 'string' ? servers[0]['url'] : '/';
    this.basePath = new URL(serverUrl, 'http://base.invalid').pathname.replace(/\/$/, '');
    for (const [template, item] of Object.entries(document['paths'] as Record<string, unknown>)) {
      if (!isObject(item)) continue;
      for (const method of METHODS) {
        const definition = item[method];
        if (isObject(definition))
          this.operations.push(this.operation(method.toUpperCase(), template, item, definition));
      }
    }
  }

  validateRequest(request: RequestToCheck): string[] {
    const found = this.find(request.method, request.path);
    if (typeof found === 'string') return [found];
    const { operation, pathValues } = found;
    const violations: string[] = [];
    const query = queryValues(request.query);
    for (const parameter of operation.parameters) {
      if (parameter.in === 'path') {
        this.check(parameter.schema, pathValues[parameter.name], `path parameter '${parameter.name}'`, violations);
      } else if (parameter.in === 'query') {
        const values = query.get(parameter.name);
        if (values === undefined) {
          if (parameter.required) violations.push(`query parameter '${parameter.name}' is required`);
          continue;
        }
        const schema = parameter.jsonSchema;
        if (isObject(schema) && schema['type'] === 'array') {
          this.check(
            parameter.schema,
            values.map((v) => coerce(v, schema['items'])),
            `query parameter '${parameter.name}'`,
            violations,
          );
        } else if (values.length > 1) {
          violations.push(`query parameter '${parameter.name}' must not be repeated`);
        } else {
          this.check(
            parameter.schema,
            coerce(values[0] ?? '', schema),
            `query parameter '${parameter.name}'`,
            violations,
          );
        }
      }
    }
    // The provider would ignore a misspelt parameter; flagging it turns a silent connector bug into a visible one.
    for (const name of query.keys()) {
      if (!operation.parameters.some((p) => p.in === 'query' && p.name === name))
        violations.push(`query parameter '${name}' is not defined for ${operation.method} ${operation.template}`);
    }
    const requestBody = this.converter.deref(operation.definition['requestBody']);
    if (isObject(requestBody)) {
      const content = isObject(requestBody['content']) ? requestBody['content'] : {};
      const json = content['application/json'];
      if (request.body === undefined) {
        if (requestBody['required'] === true) violations.push('request body is required');
      } else if (isObject(json)) {
        this.check(json['schema'], request.body, 'request body', violations);
      }
    }
    return violations;
  }

  validateResponse(
    method: string,
    path: string,
    status: number,
    contentType: string | undefined,
    body: unknown,
  ): string[] {
    const found = this.find(method, path);
    if (typeof found === 'string') return [found];
    const { operation } = found;
    const responses = isObject(operation.definition['responses']) ? operation.definition['responses'] : {};
    const response = this.converter.deref(
      responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses['default'],
    );
    const where = `${operation.method} ${operation.template}`;
    if (!isObject(response)) return [`status ${status} is not documented for ${where}`];
    const content = isObject(response['content']) ? response['content'] : undefined;
    if (!content) return body === undefined || body === '' ? [] : [`${where} documents no body for status ${status}`];
    const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const entry = content[mediaType];
    if (!isObject(entry))
      return [
        `content type '${mediaType}' is not documented for ${where} status ${status} (expected ${Object.keys(content).join(', ')})`,
      ];
    let value = body;
    if (typeof body === 'string' && /[/+]json$/.test(mediaType)) {
      try {
        value = JSON.parse(body);
      } catch {
        return [`response body of ${where} is not valid JSON`];
      }
    }
    const violations: string[] = [];
    this.check(entry['schema'], value, `response body of ${where} status ${status}`, violations);
    return violations;
  }

  private find(method: string, rawPath: string): { operation: Operation; pathValues: Record<string, string> } | string {
    const path = rawPath.split('?')[0] ?? '';
    const relative =
      this.basePath && (path === this.basePath || path.startsWith(`${this.basePath}/`))
        ? path.slice(this.basePath.length) || '/'
        : path;
    const matching = this.operations.filter((operation) => operation.pattern.test(relative));
    if (matching.length === 0) return `${relative} is not a path of the document`;
    // A literal segment beats a template: /jobs/import/project_media before /jobs/{job_id}.
    const operation = matching
      .filter((o) => o.method === method.toUpperCase())
      .sort((a, b) => b.literalSegments - a.literalSegments)[0];
    if (!operation) return `${method.toUpperCase()} ${relative} is not an operation of the document`;
    const match = operation.pattern.exec(relative);
    const pathValues = Object.fromEntries(
      operation.pathNames.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? '')]),
    );
    return { operation, pathValues };
  }

  private operation(
    method: string,
    template: string,
    item: Record<string, unknown>,
    definition: Record<string, unknown>,
  ): Operation {
    const pathNames: string[] = [];
    const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_, name: string) => {
      pathNames.push(name);
      return '([^/]+)';
    });
    const declared = [...asArray(item['parameters']), ...asArray(definition['parameters'])]
      .map((p) => this.converter.deref(p))
      .filter(isObject);
    // Operation-level parameters override path-level ones of the same name and location.
    const parameters = new Map<string, Parameter>();
    for (const p of declared) {
      const schema = p['schema'] ?? {};
      parameters.set(`${String(p['in'])}:${String(p['name'])}`, {
        name: String(p['name']),
        in: String(p['in']),
        required: p['required'] === true || p['in'] === 'path',
        schema,
        jsonSchema: this.converter.toJsonSchema(schema),
      });
    }
    return {
      method,
      template,
      pattern: new RegExp(`^${source}/?$`),
      pathNames,
      literalSegments: template.split('/').filter((s) => s && !s.startsWith('{')).length,
      parameters: [...parameters.values()],
      definition,
    };
  }

  private check(schema: unknown, value: unknown, subject: string, violations: string[]): void {
    if (schema === undefined) return;
    const validate = this.validator(schema);
    if (!validate(value)) violations.push(describeViolation(validate.errors ?? [], subject, subject.includes('body')));
  }

  private validator(schema: unknown): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(this.converter.toJsonSchema(schema) as object);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function queryValues(query: RequestToCheck['query']): Map<string, string[]> {
  const values = new Map<string, string[]>();
  if (query instanceof URLSearchParams) {
    for (const [name, value] of query) values.set(name, [...(values.get(name) ?? []), value]);
  } else if (query) {
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) values.set(name, typeof value === 'string' ? [value] : [...value]);
    }
  }
  return values;
}

/** Query strings carry text; read numbers and booleans as the parameter's schema declares them. */
function coerce(value: string, schema: unknown): unknown {
  const type = isObject(schema) ? schema['type'] : undefined;
  const types = Array.isArray(type) ? type : [type];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}
