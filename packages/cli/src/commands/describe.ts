import { type Action, type Connector, excerpt } from '@plugboard/sdk';
import { catalogueEntry, type PublicOperation } from '@plugboard/sdk/host';
import { checkActionName } from '../did-you-mean.js';
import { wantsJson, writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';

/**
 * `plugboard describe [connector] [action]`: what a connector offers, read from its definition.
 * The connector's actions with their effect, approval and rate budget; an action's inputs with
 * their types, defaults and examples. Text at a terminal, one JSON line with `--json` or when
 * stdout is not a terminal.
 */

type JsonSchema = Record<string, unknown>;

/** One input field, dotted (`applicant.date_of_birth`) inside nested objects. */
export interface InputField {
  field: string;
  type: string;
  required: boolean;
  description?: string;
  default?: unknown;
  examples?: unknown[];
  /** `plugboard options` lists the values the field may take. */
  options?: true;
}

/** How deep nested objects are listed, how many values of an enum are named, how many examples a field keeps. */
const MAX_DEPTH = 4;
const MAX_VALUES = 12;
const MAX_EXAMPLES = 3;

function resolveRef(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return schema;
  const defs = (root.$defs ?? {}) as Record<string, JsonSchema>;
  return defs[decodeURIComponent(ref.slice('#/$defs/'.length))] ?? schema;
}

/** ` 1..100`, ` > 0`, ` <= 20`, or '' for a number without bounds. */
function boundsOf(schema: JsonSchema): string {
  // zod writes the safe integer bounds for a bare integer: those say nothing.
  const said = (bound: unknown): bound is number =>
    typeof bound === 'number' && Math.abs(bound) < Number.MAX_SAFE_INTEGER;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (said(minimum) && said(maximum)) return ` ${minimum}..${maximum}`;
  const low = said(minimum) ? `>= ${minimum}` : said(exclusiveMinimum) ? `> ${exclusiveMinimum}` : '';
  const high = said(maximum) ? `<= ${maximum}` : said(exclusiveMaximum) ? `< ${exclusiveMaximum}` : '';
  return [low, high]
    .filter(Boolean)
    .map((bound) => ` ${bound}`)
    .join(',');
}

/** A field's type in a few words: `string (date-time)`, `integer 1..100`, `"a" | "b"`, `array of string`. */
function typeOf(given: JsonSchema, root: JsonSchema, depth = 0): string {
  const schema = resolveRef(given, root);
  if (depth > MAX_DEPTH) return 'any';
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.slice(0, MAX_VALUES).map((value) => JSON.stringify(value));
    return `${values.join(' | ')}${schema.enum.length > MAX_VALUES ? ` | … (${schema.enum.length} values)` : ''}`;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) return variants.map((variant) => typeOf(variant, root, depth + 1)).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type as string | undefined);
  if (type === 'array') return `array of ${schema.items ? typeOf(schema.items as JsonSchema, root, depth + 1) : 'any'}`;
  if (type === 'string') return typeof schema.format === 'string' ? `string (${schema.format})` : 'string';
  if (type === 'integer' || type === 'number') return `${type}${boundsOf(schema)}`;
  return type ?? 'any';
}

/** The fields of an object schema, nested objects' fields after their own, dotted. */
function examplesOf(schema: JsonSchema): unknown[] {
  return Array.isArray(schema.examples) ? schema.examples.slice(0, MAX_EXAMPLES) : [];
}

/** Each example once, the first few. */
function distinct(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values
    .filter((value) => {
      const text = JSON.stringify(value);
      return !seen.has(text) && seen.add(text);
    })
    .slice(0, MAX_EXAMPLES);
}

/** The values a field takes in the examples of the object holding it (an author often gives whole inputs as examples). */
function fieldExamples(outer: readonly unknown[], name: string): unknown[] {
  return outer
    .filter((example): example is Record<string, unknown> => typeof example === 'object' && example !== null)
    .filter((example) => Object.hasOwn(example, name))
    .map((example) => example[name]);
}

/** The fields of an object schema, nested objects' fields after their own, dotted. */
function fieldsOf(
  given: JsonSchema,
  root: JsonSchema,
  prefix: string,
  outerExamples: readonly unknown[],
  optionFields: ReadonlySet<string>,
  depth: number,
): InputField[] {
  const schema = resolveRef(given, root);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const objectExamples = distinct([...examplesOf(given), ...examplesOf(schema), ...outerExamples]);
  const fields: InputField[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const field = `${prefix}${name}`;
    const inner = resolveRef(property, root);
    const description = inner.description ?? property.description;
    const examples = distinct([...examplesOf(property), ...examplesOf(inner), ...fieldExamples(objectExamples, name)]);
    fields.push({
      field,
      type: typeOf(property, root),
      required: required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      ...('default' in property ? { default: property.default } : 'default' in inner ? { default: inner.default } : {}),
      ...(examples.length > 0 ? { examples } : {}),
      ...(optionFields.has(field) ? { options: true as const } : {}),
    });
    if (inner.type === 'object' && inner.properties && depth < MAX_DEPTH)
      fields.push(...fieldsOf(inner, root, `${field}.`, fieldExamples(objectExamples, name), optionFields, depth + 1));
  }
  return fields;
}

/** The inputs of an action from its zod schema, as a caller may send them (a field with a default is optional). */
export function inputFields(action: Action): InputField[] {
  const root = action.input.toJSONSchema({ io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return fieldsOf(root, root, '', [], new Set(Object.keys(action.options ?? {})), 0);
}

function budgetOf(connector: Connector, operation: PublicOperation) {
  const budget = operation.rateBudget === undefined ? undefined : connector.rateLimits[operation.rateBudget];
  return budget && { name: operation.rateBudget!, limit: budget.limit, per: budget.per };
}

function actionSummary(connector: Connector, operation: PublicOperation) {
  const budget = budgetOf(connector, operation);
  return {
    key: operation.key,
    label: operation.label,
    mode: operation.mode,
    effect: operation.effect,
    billable: operation.billable,
    approval: operation.approval,
    ...(budget ? { budget } : {}),
    ...(operation.incremental ? { incremental: operation.incremental } : {}),
    ...(operation.implemented === false ? { implemented: false } : {}),
  };
}

type Summary = ReturnType<typeof actionSummary>;

function effectWords({ effect, billable }: Summary): string {
  const what = !effect?.writes ? 'reads' : effect.destructive ? 'writes (destructive)' : 'writes';
  return `${what}${effect?.writes && effect.idempotent ? ', idempotent' : ''}${billable ? ', billable' : ''}`;
}

function budgetWords(summary: Summary): string {
  return summary.budget ? `${summary.budget.name}: ${summary.budget.limit} per ${summary.budget.per}` : 'none';
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => `  ${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd()).join('\n');
}

function connectorText(connector: Connector, summaries: Summary[]): string {
  const rows = [
    ['ACTION', 'MODE', 'EFFECT', 'APPROVAL', 'BUDGET'],
    ...summaries.map((summary) => [
      summary.key,
      summary.mode,
      effectWords(summary),
      summary.approval ?? 'none',
      budgetWords(summary),
    ]),
  ];
  return `${connector.key}: ${connector.name} ${connector.version}\n${connector.summary}\n\n${table(rows)}\n\nplugboard describe ${connector.key} ACTION lists an action's inputs\n`;
}

function value(json: unknown): string {
  return excerpt(JSON.stringify(json), 80);
}

function actionText(connector: Connector, action: Action, summary: Summary, fields: InputField[]): string {
  const lines = [
    `${connector.key} ${action.key}: ${action.label}`,
    ...(action.description ? [action.description] : []),
    '',
    `  mode      ${summary.mode}`,
    `  effect    ${effectWords(summary)}`,
    `  approval  ${summary.approval ?? 'none'}${summary.approval === 'production' ? ' (production runs need --approval)' : summary.approval === 'always' ? ' (every run needs --approval)' : ''}`,
    `  budget    ${budgetWords(summary)}`,
    '',
  ];
  if (fields.length === 0) return `${[...lines, 'Input: none'].join('\n')}\n`;
  const rows = [
    ['INPUT', 'TYPE', 'REQUIRED', 'DEFAULT', 'EXAMPLE'],
    ...fields.map((field) => [
      field.field,
      field.type,
      field.required ? 'yes' : 'no',
      'default' in field ? value(field.default) : '',
      field.examples?.length ? value(field.examples[0]) : '',
    ]),
  ];
  const described = fields.filter((field) => field.description);
  const withOptions = fields.filter((field) => field.options);
  return `${[
    ...lines,
    table(rows),
    ...(described.length ? ['', ...described.map((field) => `  ${field.field}: ${field.description}`)] : []),
    ...(withOptions.length
      ? [
          '',
          ...withOptions.map(
            (field) => `plugboard options ${connector.key} ${action.key} ${field.field} lists the values it may take`,
          ),
        ]
      : []),
  ].join('\n')}\n`;
}

/**
 * The connector and the action asked about. One word, where a connector is found without a key
 * (`--connector`, or this folder's package), is its action unless it is another connector's key.
 */
async function subject({ args, values, findConnector }: Invocation): Promise<[Connector, string | undefined]> {
  const choice = { connector: values.connector as string | undefined, plugins: values.plugins as string | undefined };
  const [word] = args;
  const here = args.length === 1 ? await findConnector(choice).catch(() => undefined) : undefined;
  if (here && word !== undefined) {
    if (choice.connector || here.connector.action(word)) return [here.connector, word];
    // Another connector's key, else a misspelt action of this one.
    const named = await findConnector({ ...choice, key: word }).catch(() => undefined);
    return named ? [named.connector, undefined] : [here.connector, word];
  }
  const [key, action] = args;
  return [(await findConnector({ ...choice, key })).connector, action];
}

export async function describeCommand(invocation: Invocation): Promise<void> {
  const { values, io } = invocation;
  const [connector, actionKey] = await subject(invocation);
  const operations = catalogueEntry(connector).operations;
  const json = wantsJson({ values, io });
  if (actionKey === undefined) {
    const actions = operations.map((operation) => actionSummary(connector, operation));
    if (json)
      return writeJsonLine(io.stdout, {
        key: connector.key,
        name: connector.name,
        version: connector.version,
        summary: connector.summary,
        actions,
      });
    io.stdout.write(connectorText(connector, actions));
    return;
  }
  checkActionName(connector, actionKey);
  const action = connector.action(actionKey)!;
  const summary = actionSummary(connector, operations.find((operation) => operation.key === actionKey)!);
  const inputs = inputFields(action);
  if (json)
    return writeJsonLine(io.stdout, {
      connector: connector.key,
      ...summary,
      description: action.description ?? null,
      inputs,
    });
  io.stdout.write(actionText(connector, action, summary, inputs));
}
