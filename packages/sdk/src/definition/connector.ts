import { z } from 'zod';
import type { ActionContext } from '../context.js';
import type { ConnectorError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import type { ProviderFailure } from '../http/classify.js';
import { type Action, approvalOf } from './action.js';
import { credentialHeader, schemeProblems } from '../auth/schemes/index.js';
import type { AuthScheme } from './auth.js';
import { pagingProblems } from '../paginate/definition-check.js';
import { optionsProblems } from './options.js';
import { type Category, isCategory, CATEGORIES } from './categories.js';
import { DefinitionError } from './definition-error.js';
import { type Trigger, triggerProblems } from './trigger.js';

export { DefinitionError };

/** A declared rate budget: how many requests per period, shared by the actions that draw on it. */
export interface RateBudget {
  /**
   * Requests allowed per period: a whole number of at least 1.
   * @example limit: 120
   */
  limit: number;
  /**
   * The period the limit counts over.
   * @example per: 'minute'
   */
  per: 'second' | 'minute' | 'hour' | 'day';
  /**
   * `connection`: each connection has its own budget (the provider limits per credential);
   * `connector`: all connections share one (the provider limits per client or IP).
   * @example scope: 'connector'
   * @default 'connection'
   */
  scope?: 'connection' | 'connector';
  /**
   * Requests in flight at once on this budget; a whole number of at least 1.
   * @example maxConcurrent: 4
   * @default no limit but the rate
   */
  maxConcurrent?: number;
}

/** Each period a rate budget may count over, in milliseconds. */
export const PERIOD_MS: Record<RateBudget['per'], number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** What `defineConnector` takes: the connector's key, name, category, auth schemes, settings, actions, rate budgets and `classifyError`. */
export interface ConnectorDefinition {
  /**
   * Stable key in lower case letters, digits, `-` or `_`: the catalogue's `connectorKey`.
   * @example key: 'descript'
   */
  key: string;
  /**
   * The provider's name as people read it.
   * @example name: 'Descript'
   */
  name: string;
  /**
   * The connector package's semantic version; part of every approval digest.
   * @example version: packageJson.version
   */
  version: string;
  /**
   * Who makes the provider's product, or null when nobody in particular does.
   * @example vendor: 'Descript, Inc.'
   */
  vendor: string | null;
  /**
   * The catalogue category.
   * @example category: 'media'
   */
  category: Category;
  /**
   * How far along the connector is; shown in the catalogue.
   * @example status: 'beta'
   */
  status: 'alpha' | 'beta' | 'stable' | 'deprecated';
  /**
   * One or two sentences for the catalogue: what the connector reads and writes.
   * @example summary: 'Descript projects, media files and jobs; imports media from URLs.'
   */
  summary: string;
  /**
   * The provider's API documentation, an http(s) URL.
   * @example documentationUrl: 'https://docs.descriptapi.com/'
   * @default null
   */
  documentationUrl?: string | null;
  /**
   * Accepted schemes, the first being the default; a connection picks another with `settings.authScheme`.
   * @example auth: [bearerToken(), apiKeyHeader('X-Api-Key')]
   */
  auth: AuthScheme | readonly AuthScheme[];
  /**
   * Default base URL, http(s); every connection may override it. Without one, a connection must set it.
   * @example baseUrl: 'https://descriptapi.com/v1'
   * @default none: each connection sets its own
   */
  baseUrl?: string;
  /**
   * Non-secret connection settings the connector understands, checked when a connection is resolved.
   * @example settings: z.object({ region: z.enum(['eu', 'us']).default('eu') })
   * @default no settings
   */
  settings?: z.ZodObject;
  /**
   * Named rate budgets; an action draws on the one it names, else the one named like its key, else `default`.
   * @example rateLimits: { default: { limit: 60, per: 'minute' }, jobs: { limit: 10, per: 'minute', maxConcurrent: 2 } }
   * @default no budgets: requests are limited only by the provider's answers
   */
  rateLimits?: Record<string, RateBudget>;
  /**
   * What the connector does not do, on purpose or for now. Published in the catalogue.
   * @example limitations: ['Direct upload is not supported: media is imported from URLs.']
   * @default []
   */
  limitations?: readonly string[];
  /**
   * The connector's actions (see `defineAction`); at least one, keys distinct.
   * @example actions: [projectsList, projectsGet, mediaImportsCreate]
   */
  actions: readonly Action[];
  /**
   * The provider webhooks the connector declares (see `defineTrigger`): keys distinct, none an action's key.
   * @example triggers: [ordersCreated]
   * @default []
   */
  triggers?: readonly Trigger[];
  /**
   * Reads a provider failure before the status-based mapping (e.g. by message); returns undefined
   * to leave it to that mapping.
   * @example classifyError: (failure) => failure.status === 402 ? new QuotaExceededError(...) : undefined
   * @default the status-based mapping only
   */
  classifyError?: (failure: ProviderFailure) => ConnectorError | undefined;
  /**
   * One cheap request proving the connection's credential works, such as a GET of the account;
   * a host's connection check (`checkConnection`) runs it through the same pipeline as actions.
   * @example check: async (ctx) => { await ctx.http.get('/me'); }
   * @default none: a connection check reports `not_checked`
   */
  check?: (ctx: ActionContext) => Promise<unknown>;
}

/** A connector as `defineConnector` returns it, checked, with its actions, auth schemes and rate budgets spelled out. */
export interface Connector extends Omit<ConnectorDefinition, 'auth' | 'actions' | 'triggers'> {
  auth: readonly AuthScheme[];
  actions: readonly Action[];
  triggers: readonly Trigger[];
  rateLimits: Record<string, RateBudget>;
  limitations: readonly string[];
  /** Looks an action up by key. */
  action(key: string): Action | undefined;
  /** Looks a trigger up by key. */
  trigger(key: string): Trigger | undefined;
}

const KEY = /^[a-z][a-z0-9_-]*$/;
const ACTION_KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** The `id` a data type was named with through `.meta({ id })`. */
export function entityId(schema: z.ZodType): string | undefined {
  return z.globalRegistry.get(schema)?.id;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const EFFECT_SHAPE = "effect must be 'read' or { writes: true, idempotent: boolean, destructive: boolean }";

/** The declared effect is one of the two shapes, with nothing left to guess. */
function effectProblems(effect: unknown): string[] {
  if (effect === undefined || effect === 'read') return [];
  if (typeof effect === 'object' && effect !== null) {
    const { writes, idempotent, destructive } = effect as Record<string, unknown>;
    if (writes !== true && destructive === true) {
      return [
        "an action that only reads cannot be destructive: set effect: { writes: true, idempotent, destructive: true }, or effect: 'read'",
      ];
    }
    if (writes === true && typeof idempotent === 'boolean' && typeof destructive === 'boolean') return [];
  }
  return [`${EFFECT_SHAPE}, not ${excerpt(JSON.stringify(effect) ?? String(effect))}`];
}

/** An HTTP field name (RFC 9110 `token`). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers the pipeline itself sets on every request: a key in one of them would be lost or break the request. */
const PIPELINE_HEADERS = new Set(['accept', 'authorization', 'content-length', 'content-type', 'cookie', 'host']);

/** A destination's `idempotencyHeader`: a header name of its own, and only on a destination. */
function idempotencyHeaderProblems(action: Action): string[] {
  if (!('idempotencyHeader' in action) || action.idempotencyHeader === undefined) return [];
  const header: unknown = action.idempotencyHeader;
  if (action.direction !== 'destination')
    return ['idempotencyHeader is for a destination: a source is never run under an idempotency key'];
  if (typeof header !== 'string' || !HEADER_NAME.test(header))
    return [
      `idempotencyHeader must be an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~), not ${excerpt(JSON.stringify(header) ?? String(header))}`,
    ];
  if (PIPELINE_HEADERS.has(header.toLowerCase()))
    return [`idempotencyHeader cannot be ${header}: the HTTP pipeline sets that header itself`];
  return [];
}

function actionProblems(action: Action, budgets: Record<string, RateBudget>): string[] {
  const problems: string[] = [];
  if (!ACTION_KEY.test(action.key ?? '')) problems.push('the key must look like `resource.verb` in lower snake case');
  const direction: unknown = action.direction;
  if (direction !== 'source' && direction !== 'destination') {
    problems.push(`direction must be 'source' or 'destination', not ${JSON.stringify(direction)}`);
  }
  if (!action.label) problems.push('a label is required');
  if (!(action.input instanceof z.ZodType)) problems.push('input must be a zod schema');
  if (!(action.entity instanceof z.ZodType)) problems.push('entity must be a zod schema');
  else if (!entityId(action.entity))
    problems.push("the entity must be a named data type: give it .meta({ id: 'Name' })");
  if (action.direction === 'destination' && 'incremental' in action && action.incremental) {
    problems.push('a destination cannot be incremental');
  }
  problems.push(...idempotencyHeaderProblems(action));
  if (action.direction === 'source') {
    const shape = action.entity instanceof z.ZodObject ? action.entity.shape : undefined;
    problems.push(...pagingProblems(action, shape));
  }
  problems.push(...effectProblems(action.effect));
  if (action.retry !== undefined && action.retry !== 'safe' && action.retry !== 'never') {
    problems.push(`retry must be 'safe' or 'never', not ${JSON.stringify(action.retry)}`);
  }
  if (action.billable && action.retry === 'safe') {
    problems.push("a billable action is never retried automatically: leave retry out (retry: 'safe' is refused)");
  }
  const approval = approvalOf(action);
  if (!['none', 'production', 'always'].includes(approval)) {
    problems.push(`approval must be 'none', 'production' or 'always', not ${JSON.stringify(approval)}`);
  }
  if (action.billable && approval === 'none') {
    problems.push(
      "a billable action must be approved before it spends money: leave approval out (before production) or set approval: 'always'",
    );
  }
  if (action.budget !== undefined && !Object.hasOwn(budgets, action.budget)) {
    problems.push(`the budget '${action.budget}' is not declared in rateLimits`);
  }
  if (action.maxRetryAfterSeconds !== undefined && !(action.maxRetryAfterSeconds >= 0)) {
    problems.push('maxRetryAfterSeconds must be zero or more');
  }
  if (action.timeoutMs !== undefined && !(action.timeoutMs > 0)) problems.push('timeoutMs must be more than zero');
  if (action.check !== undefined && typeof action.check !== 'function') problems.push('check must be a function');
  problems.push(...optionsProblems(action.input, action.options));
  const implementation = action.direction === 'source' ? action.read : action.write;
  if (implementation !== undefined && typeof implementation !== 'function') {
    problems.push(action.direction === 'source' ? 'read must be a function' : 'write must be a function');
  }
  return problems;
}

function budgetProblems(name: string, budget: RateBudget): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(budget.limit) || budget.limit < 1)
    problems.push(`rate budget '${name}': limit must be a whole number of at least 1`);
  if (!Object.hasOwn(PERIOD_MS, budget.per))
    problems.push(`rate budget '${name}': per must be second, minute, hour or day`);
  if (budget.maxConcurrent !== undefined && !(Number.isInteger(budget.maxConcurrent) && budget.maxConcurrent >= 1)) {
    problems.push(`rate budget '${name}': maxConcurrent must be a whole number of at least 1`);
  }
  return problems;
}

/** Every problem of a definition, each naming the connector and, where it applies, the action. */
export function connectorProblems(definition: ConnectorDefinition): string[] {
  const name = `connector '${definition.key}'`;
  const problems: string[] = [];
  const at = (text: string) => problems.push(`${name}: ${text}`);
  if (!KEY.test(definition.key ?? '')) at('the key must be lower case letters, digits, - or _');
  if (!definition.name) at('a name is required');
  if (!SEMVER.test(definition.version ?? ''))
    at(`version must be a semantic version, not ${JSON.stringify(definition.version)}`);
  if (!isCategory(definition.category ?? '')) at(`category must be one of ${Object.keys(CATEGORIES).join(', ')}`);
  if (!['alpha', 'beta', 'stable', 'deprecated'].includes(definition.status))
    at('status must be alpha, beta, stable or deprecated');
  if (!definition.summary) at('a summary is required');
  const schemes = [definition.auth ?? []].flat();
  if (schemes.length === 0) at('at least one auth scheme is required');
  const ids = new Set<string>();
  for (const scheme of schemes) {
    const label = `auth scheme '${scheme?.id}'`;
    if (ids.has(scheme?.id)) at(`${label}: the id is declared twice (give one of them its own id)`);
    ids.add(scheme?.id);
    for (const problem of schemeProblems(scheme)) at(`${label}: ${problem}`);
  }
  if (definition.check !== undefined && typeof definition.check !== 'function') at('check must be a function');
  if (definition.documentationUrl && !isHttpUrl(definition.documentationUrl))
    at(`documentationUrl must be an http(s) URL, not ${JSON.stringify(definition.documentationUrl)}`);
  if (definition.baseUrl !== undefined && !isHttpUrl(definition.baseUrl))
    at(`baseUrl must be an http(s) URL, not ${JSON.stringify(definition.baseUrl)}`);
  const budgets = definition.rateLimits ?? {};
  for (const [budgetName, budget] of Object.entries(budgets)) budgetProblems(budgetName, budget).forEach(at);
  if (!Array.isArray(definition.actions) || definition.actions.length === 0) at('at least one action is required');
  const seen = new Set<string>();
  // The credential's own header cannot carry an idempotency key as well.
  const credentialHeaders = new Set(
    schemes.flatMap((scheme) => {
      const header = credentialHeader(scheme);
      return header === undefined ? [] : [String(header).toLowerCase()];
    }),
  );
  for (const action of definition.actions ?? []) {
    if (seen.has(action.key)) at(`action '${action.key}': the key is declared twice`);
    seen.add(action.key);
    for (const problem of actionProblems(action, budgets)) at(`action '${action.key}': ${problem}`);
    const header = action.direction === 'destination' ? action.idempotencyHeader : undefined;
    if (typeof header === 'string' && credentialHeaders.has(header.toLowerCase()))
      at(`action '${action.key}': idempotencyHeader cannot be ${header}: the credential is sent in that header`);
  }
  problems.push(...declaredTriggerProblems(definition, seen).map((problem) => `${name}: ${problem}`));
  return problems;
}

/** Each trigger's problems, a key declared twice or already an action's, a budget not declared. */
function declaredTriggerProblems(definition: ConnectorDefinition, actionKeys: ReadonlySet<string>): string[] {
  if (definition.triggers === undefined) return [];
  if (!Array.isArray(definition.triggers)) return ['triggers must be a list of defineTrigger(...)'];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const trigger of definition.triggers as readonly Trigger[]) {
    const at = (text: string) => problems.push(`trigger '${trigger?.key}': ${text}`);
    if (typeof trigger !== 'object' || trigger === null) {
      problems.push('triggers must be a list of defineTrigger(...)');
      continue;
    }
    if (seen.has(trigger.key)) at('the key is declared twice');
    if (actionKeys.has(trigger.key)) at("the key is an action's key too: operations share one list");
    seen.add(trigger.key);
    triggerProblems(trigger).forEach(at);
    if (trigger.budget !== undefined && !Object.hasOwn(definition.rateLimits ?? {}, trigger.budget))
      at(`the budget '${trigger.budget}' is not declared in rateLimits`);
  }
  return problems;
}

/** Assembles a connector, checking it whole: a definition that cannot work fails here, not at run time. */
export function defineConnector(definition: ConnectorDefinition): Connector {
  const problems = connectorProblems(definition);
  if (problems.length > 0) throw new DefinitionError(problems);
  const actions = new Map(definition.actions.map((action) => [action.key, action]));
  const triggers = new Map((definition.triggers ?? []).map((trigger) => [trigger.key, trigger]));
  return Object.freeze({
    ...definition,
    auth: Object.freeze([definition.auth].flat()),
    actions: Object.freeze([...definition.actions]),
    triggers: Object.freeze([...triggers.values()]),
    trigger: (key: string) => triggers.get(key),
    rateLimits: Object.freeze({ ...definition.rateLimits }),
    limitations: Object.freeze([...(definition.limitations ?? [])]),
    action: (key: string) => actions.get(key),
  });
}

/** The declared budget an action's requests draw on, as the HTTP pipeline picks it. */
export function budgetOf(connector: Connector, action: Action): string | undefined {
  const name = action.budget ?? (Object.hasOwn(connector.rateLimits, action.key) ? action.key : 'default');
  return Object.hasOwn(connector.rateLimits, name) ? name : undefined;
}
