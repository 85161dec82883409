import { describeScheme, compareText } from '@plugboard/sdk/host';
import { API_VERSION } from '../constants.js';
import type { CatalogueEntry, CatalogueOperation } from '../entry.js';
import type { FieldRow } from '../fields.js';
import { markdownBlock, markdownInline } from './markdown.js';
import { SCRIPT } from './script.js';
import { STYLE } from './style.js';

/**
 * The static catalogue site: one HTML file with its CSS, script and data
 * inlined. Every connector is rendered into the page (readable without
 * script); the script only filters. A Content-Security-Policy forbids every
 * request, so the page works from the file system and never reaches a network.
 */

export interface SiteTable {
  name: string;
  description: string | null;
  rows: FieldRow[];
}

export interface SiteDataType {
  name: string;
  /** The schema file that holds it: its own, or, for a named part of a data type, the first file it appears in. */
  file: string;
  /** A named type used inside data types (under `$defs`), not the entity of an operation itself. */
  nested: boolean;
  tables: SiteTable[];
}

export interface SiteExample {
  /** An input the action accepts: a recorded run's, else the required fields sampled from its schema. */
  input: unknown;
  /** A record (or a destination's result): a recorded one, else sampled from the data type; null when the action has none. */
  record: unknown;
  /** True when both come from a recording (redacted) rather than from the schemas. */
  recorded: boolean;
}

export interface SiteConnector {
  entry: CatalogueEntry;
  dataTypes: SiteDataType[];
  /** Input fields by action key. */
  inputs: Record<string, FieldRow[]>;
  /** Example input and record by action key. */
  examples: Record<string, SiteExample>;
}

export interface SiteInput {
  generatedAt: string;
  connectors: readonly SiteConnector[];
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** JSON that is safe inside a `<script>` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const h = escapeHtml;

function anchor(connectorKey: string, name: string): string {
  return `type-${connectorKey}-${name}`.replace(/[^A-Za-z0-9_-]/g, '-');
}

/** The page address of one connector: `index.html#connector-<key>` opens it. */
export function connectorAnchor(key: string): string {
  return `connector-${key}`.replace(/[^A-Za-z0-9_-]/g, '-');
}

function yesNo(value: boolean | undefined, strong = false): string {
  if (value === undefined) return '<span class="muted">–</span>';
  return value ? (strong ? '<span class="yes">yes</span>' : 'yes') : '<span class="muted">no</span>';
}

/** A type label, with the name of a type that has its own table linked to it. */
function typeCell(type: string, links: ReadonlyMap<string, string>): string {
  const match = /^([A-Za-z_][A-Za-z0-9_.-]*)((?:\[\])*)( \| null)?$/.exec(type);
  const target = match ? links.get(match[1] as string) : undefined;
  if (!match || target === undefined) return `<code>${h(type)}</code>`;
  return `<code><a href="#${target}">${h(match[1] as string)}</a>${h(match[2] ?? '')}${h(match[3] ?? '')}</code>`;
}

function fieldTable(
  rows: readonly FieldRow[],
  caption?: string,
  links: ReadonlyMap<string, string> = new Map(),
): string {
  if (rows.length === 0) return '<p class="muted">No fields.</p>';
  const body = rows
    .map(
      (row) =>
        `<tr><td><code>${h(row.field)}</code></td><td>${typeCell(row.type, links)}</td><td>${row.required ? 'yes' : '<span class="muted">no</span>'}</td><td>${row.description === null ? '' : markdownInline(row.description)}</td></tr>`,
    )
    .join('');
  return `<table class="fields"${caption ? ` aria-label="${h(caption)}"` : ''}><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${body}</tbody></table>`;
}

function approvalText(operation: CatalogueOperation): string {
  if (!operation.approvalRequired) return '<span class="muted">no</span>';
  return operation.approval === 'production' ? 'before production' : operation.approval === 'always' ? 'always' : 'yes';
}

/** What the call does, as people read it: reads only, or writes and how. */
function effectText(operation: CatalogueOperation): string {
  const { effect } = operation;
  if (effect === undefined) return '<span class="muted">–</span>';
  if (!effect.writes) return 'reads only';
  const facts = [
    effect.idempotent ? 'idempotent' : '',
    effect.destructive ? '<span class="badge destructive">destructive</span>' : '',
  ];
  return ['writes', ...facts.filter(Boolean)].join('<br>');
}

function typeLinks(connector: SiteConnector): Map<string, string> {
  return new Map(connector.dataTypes.map((type) => [type.name, anchor(connector.entry.key, type.name)]));
}

function operationsTable(connector: SiteConnector): string {
  const { entry } = connector;
  const links = typeLinks(connector);
  const rows = entry.operations
    .map((operation) => {
      const entity =
        operation.entity === null
          ? '<span class="muted">–</span>'
          : `<a href="#${anchor(entry.key, operation.entity)}"><code>${h(operation.entity)}</code></a>`;
      const facts = [
        operation.incremental ? `incremental on <code>${h(operation.incremental.cursorField)}</code>` : '',
        operation.retry ? `retry: ${h(operation.retry)}` : '',
        operation.rateBudget ? `budget: <code>${h(operation.rateBudget)}</code>` : '',
        operation.idempotencyHeader ? `idempotency key in <code>${h(operation.idempotencyHeader)}</code>` : '',
        operation.implemented === false ? '<span class="badge todo">not implemented</span>' : '',
      ].filter(Boolean);
      const inputs = connector.inputs[operation.key] ?? [];
      const inputText =
        inputs.length === 0
          ? ''
          : `<details><summary>input: ${inputs.filter((row) => !row.field.includes('.')).length} field(s)</summary>${fieldTable(inputs, `input of ${operation.key}`, links)}</details>`;
      const example = exampleBlock(entry, operation, connector.examples[operation.key]);
      return `<tr class="operation" data-mode="${h(operation.mode)}" data-operation="${h(operation.key)}"><td><code>${h(operation.key)}</code><br>${h(operation.label)}</td><td>${h(operation.mode)}</td><td>${entity}</td><td>${effectText(operation)}</td><td>${approvalText(operation)}</td><td>${yesNo(operation.billable, true)}</td><td>${operation.description === null ? '' : `<div class="description">${markdownBlock(operation.description)}</div>`}${facts.length ? `<div class="meta">${facts.join(' · ')}</div>` : ''}${inputText}${example}</td></tr>`;
    })
    .join('');
  return `<table class="operations"><thead><tr><th>Operation</th><th>Direction</th><th>Data type</th><th>Effect</th><th>Approval</th><th>Billable</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** A word for a POSIX shell: in single quotes, a quote inside closed, escaped and reopened. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Where a run line says the provider's address goes, for a connector that has none of its own. */
export const BASE_URL_PLACEHOLDER = '<provider base URL>';

/** The names `plugboard run KEY` finds a connector's package by; any other is named with `--connector`. */
function foundByKey(connectorKey: string, packageName: string): boolean {
  return (
    packageName === `@plugboard/connector-${connectorKey}` || packageName === `plugboard-connector-${connectorKey}`
  );
}

/**
 * The command that runs an operation with its example input: the package named when its key
 * does not find it, and the base URL as a placeholder when the connector has none of its own.
 */
export function runLine(entry: CatalogueEntry, operationKey: string, input: unknown): string {
  const words = ['plugboard', 'run', entry.key, operationKey];
  if (entry.package && !foundByKey(entry.key, entry.package)) words.push('--connector', entry.package);
  if (entry.authentication?.baseUrl === null) words.push('--base-url', shellQuote(BASE_URL_PLACEHOLDER));
  return `${words.join(' ')} --input ${shellQuote(JSON.stringify(input ?? {}))}`;
}

function exampleBlock(entry: CatalogueEntry, operation: CatalogueOperation, example: SiteExample | undefined): string {
  if (!example) return '';
  const line = runLine(entry, operation.key, example.input);
  const from = example.recorded ? 'recorded, redacted' : 'sampled from the schema';
  const placeholder =
    entry.authentication?.baseUrl === null
      ? `<p class="example-label">Replace <code>${h(BASE_URL_PLACEHOLDER)}</code> with the address of the provider's API: the connector has none of its own.</p>`
      : '';
  const output =
    example.record === null
      ? ''
      : `<p class="example-label">${operation.mode === 'source' ? 'A record' : 'The result'} (${from})</p><pre class="example-record"><code>${h(JSON.stringify(example.record, null, 2))}</code></pre>`;
  return `<details class="example" data-example="${example.recorded ? 'recorded' : 'sampled'}"><summary>Example</summary><div class="run-line"><code>${h(line)}</code><button type="button" class="copy" data-copy="${h(line)}" aria-label="Copy the command">Copy</button></div>${placeholder}<p class="example-label">Input (${from})</p><pre class="example-input"><code>${h(JSON.stringify(example.input ?? {}, null, 2))}</code></pre>${output}</details>`;
}

function rateTable(entry: CatalogueEntry): string {
  const budgets = Object.entries(entry.rateLimits ?? {});
  if (budgets.length === 0) return '<p class="muted">No declared rate budget.</p>';
  const rows = budgets
    .map(([name, budget]) => {
      const users = entry.operations
        .filter((operation) => operation.rateBudget === name)
        .map((operation) => `<code>${h(operation.key)}</code>`);
      return `<tr><td><code>${h(name)}</code></td><td>${budget.limit} per ${h(budget.per)}</td><td>${h(budget.scope)}</td><td>${users.join(', ') || '<span class="muted">–</span>'}</td></tr>`;
    })
    .join('');
  return `<table class="rate-budgets"><thead><tr><th>Budget</th><th>Limit</th><th>Scope</th><th>Operations</th></tr></thead><tbody>${rows}</tbody></table>`;
}

type PublicScheme = NonNullable<CatalogueEntry['authentication']>['schemes'][number];

/** The scheme in the words its type gives it, its values as code. */
function schemeText(scheme: PublicScheme): string {
  return describeScheme(scheme)
    .map((part) => (typeof part === 'string' ? h(part) : `<code>${h(part.code)}</code>`))
    .join('');
}

function authenticationText(entry: CatalogueEntry): string {
  const auth = entry.authentication;
  if (!auth) return '<p class="muted">Not described.</p>';
  const schemes = auth.schemes.map((scheme) => `${schemeText(scheme)}${scheme.default ? ' (default)' : ''}`).join('; ');
  const base =
    auth.baseUrl === null
      ? 'set per connection'
      : `<code>${h(auth.baseUrl)}</code>${auth.baseUrlOverridable ? ', overridable per connection' : ''}`;
  return `<p>${schemes}. Base URL: ${base}. The credential comes from the connection's secret reference, never from the catalogue.</p>`;
}

function connectorItem(connector: SiteConnector): string {
  const { entry } = connector;
  const billable = entry.operations.some((operation) => operation.billable === true);
  const approval = entry.operations.some((operation) => operation.approvalRequired);
  const modes = [...new Set(entry.operations.map((operation) => operation.mode))].sort(compareText);
  const counts = modes
    .map((mode) => `${entry.operations.filter((operation) => operation.mode === mode).length} ${mode}`)
    .join(', ');
  const badges = [
    `<span class="badge status-${h(entry.status)}">${h(entry.status)}</span>`,
    approval ? '<span class="badge approval">approval required</span>' : '',
    billable ? '<span class="badge billable">billable</span>' : '',
    entry.implemented ? '' : '<span class="badge todo">partly implemented</span>',
  ].join('');
  const docs =
    entry.documentationUrl === null
      ? ''
      : ` · <a href="${h(entry.documentationUrl)}" rel="noreferrer">provider documentation</a>`;
  const limitations =
    entry.limitations.length === 0
      ? '<p class="muted">None stated.</p>'
      : `<ul class="limitations">${entry.limitations.map((text) => `<li>${markdownInline(text)}</li>`).join('')}</ul>`;
  const links = typeLinks(connector);
  const dataTypes = connector.dataTypes
    .map((type) => {
      const tables = type.tables
        .map(
          (table) =>
            `${table.description ? `<p>${markdownInline(table.description)}</p>` : ''}${fieldTable(table.rows, table.name, links)}`,
        )
        .join('');
      const where = type.nested
        ? `part of data types, in <code>${h(type.file)}</code>`
        : `<code>${h(type.file)}</code>`;
      return `<section class="data-type" data-name="${h(type.name)}"><h4 id="${anchor(entry.key, type.name)}">${h(type.name)} <span class="muted">(${where})</span></h4>${tables}</section>`;
    })
    .join('');
  return `<li class="connector" id="${connectorAnchor(entry.key)}" data-key="${h(entry.key)}" data-category="${h(entry.category)}" data-modes="${h(modes.join(' '))}" data-approval="${approval}" data-billable="${billable}">
<details><summary><div><span class="name">${h(entry.name)}</span><span class="key">${h(entry.key)}</span><div class="meta">${h(entry.categoryLabel)}${entry.vendor === null ? '' : ` · ${h(entry.vendor)}`}${entry.version ? ` · v${h(entry.version)}` : ''} · ${entry.operations.length} operation${entry.operations.length === 1 ? '' : 's'} (${counts})</div></div><div class="badges">${badges}<span class="open-hint" aria-hidden="true"><span class="when-closed">Show operations</span><span class="when-open">Hide</span> <span class="chevron">▸</span></span></div><p class="summary-text">${markdownInline(entry.summary)}</p></summary>
<div class="body"><p class="meta">Package <code>${h(entry.package ?? '')}</code>${docs} · <a class="permalink" href="#${connectorAnchor(entry.key)}">Link to this connector</a></p>
<h3>Authentication</h3>${authenticationText(entry)}
<h3>Operations</h3>${operationsTable(connector)}
<h3>Limitations</h3>${limitations}
<h3>Rate budgets</h3>${rateTable(entry)}
<h3>Data types</h3>${dataTypes || '<p class="muted">None.</p>'}
</div></details></li>`;
}

export function renderSite(input: SiteInput): string {
  const connectors = [...input.connectors].sort((a, b) => compareText(a.entry.key, b.entry.key));
  const categories = new Map(connectors.map(({ entry }) => [entry.category, entry.categoryLabel]));
  const categoryOptions = [...categories]
    .sort(([, a], [, b]) => compareText(a, b))
    .map(([key, label]) => `<option value="${h(key)}">${h(label)}</option>`)
    .join('');
  const data = {
    apiVersion: API_VERSION,
    generatedAt: input.generatedAt,
    connectors: connectors.map(({ entry }) => entry),
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>Plugboard connector catalogue</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>Plugboard connector catalogue</h1><p>${connectors.length} connector${connectors.length === 1 ? '' : 's'} · platform API ${API_VERSION} · generated ${h(input.generatedAt)}</p></header>
<main>
<section class="intro">
<p>Every connector below is an npm package the platform installs and runs. Open a card for its operations, what each needs and returns, its limits and its data types; each card has an address of its own to share. To try an operation from a terminal, install the connector's package and the <code>plugboard</code> command, give the credential in the environment, and run the example an operation shows:</p>
<pre><code>npm install --save-dev @plugboard/cli &lt;the connector's package&gt;
export PLUGBOARD_CREDENTIAL=&lt;the connection's token or key&gt;
npx plugboard run &lt;connector&gt; &lt;operation&gt; --input '{…}'</code></pre>
</section>
<div class="controls" role="search">
<input id="search" type="search" placeholder="Search connectors, operations, data types…" aria-label="Search" autocomplete="off">
<label>Category <select id="filter-category"><option value="">All</option>${categoryOptions}</select></label>
<label>Direction <select id="filter-direction"><option value="">Any</option><option value="source">Source (pages of records)</option><option value="destination">Destination (one result)</option><option value="trigger">Trigger (provider webhook)</option></select></label>
<label><input id="filter-approval" type="checkbox"> Approval required</label>
<label><input id="filter-billable" type="checkbox"> Billable</label>
</div>
<p id="result-count" aria-live="polite">${connectors.length} of ${connectors.length} connector${connectors.length === 1 ? '' : 's'}</p>
<ul id="connector-list">
${connectors.map(connectorItem).join('\n')}
</ul>
<p id="empty" hidden>No connector matches the search and filters.</p>
</main>
<footer>Each entry is also in <code>connectors/&lt;key&gt;.json</code>; JSON Schemas in <code>schemas/</code>, TypeScript declarations in <code>types/</code>, the API description in <code>openapi.json</code>.</footer>
<script type="application/json" id="catalogue-data">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
