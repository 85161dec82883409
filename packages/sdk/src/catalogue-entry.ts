import {
  type Action,
  approvalOf,
  type EffectFacts,
  effectOf,
  isImplemented,
  retryPolicy,
} from './definition/action.js';
import { schemeType } from './auth/schemes/index.js';
import type { PublicAuthentication } from './auth/schemes/scheme-type.js';
import type { AuthScheme } from './definition/auth.js';
import { CATEGORIES } from './definition/categories.js';
import { checkpointDeclaration } from './checkpoint.js';
import { budgetOf, type Connector, entityId } from './definition/connector.js';
import type { Trigger } from './definition/trigger.js';
import { byKey, compareText } from './order.js';

/**
 * The public catalogue entry of one connector (`PublicConnector` of the
 * platform spec). The spec's fields come first; the facts only Plugboard knows
 * (effect, incremental, billable, retry, rate budget) are optional extras,
 * which the platform's versioning rules allow without a breaking change.
 *
 * `mode` keeps its platform meaning, how results come back: `source` yields
 * pages of records, `destination` returns one result, `trigger` is a provider
 * webhook whose deliveries start runs (`defineTrigger`). What the call does to
 * the world is `effect`: a destination may read only (a quote).
 */

export interface PublicOperation {
  key: string;
  label: string;
  description: string | null;
  entity: string | null;
  mode: 'source' | 'destination' | 'trigger';
  approvalRequired: boolean;
  approval?: 'none' | 'production' | 'always';
  /** What the call does to the world; `retry` follows from it unless the author overrode it. */
  effect?: EffectFacts;
  billable?: boolean;
  retry?: 'safe' | 'never';
  /** `checkpointVersion`: the version of the checkpoint a run keeps (1 for a schema alone, or none). */
  incremental?: { cursorField: string; checkpointVersion?: number };
  rateBudget?: string;
  implemented?: boolean;
  /**
   * The header in which the provider takes the run's idempotency key and deduplicates on it (a
   * destination's `idempotencyHeader`): a run's `idempotencyKey` reaches the provider, and a write
   * whose answer was lost may be run again under the same key.
   */
  idempotencyHeader?: string;
}

export interface PublicConnector {
  key: string;
  name: string;
  category: string;
  categoryLabel: string;
  summary: string;
  status: string;
  vendor: string | null;
  documentationUrl: string | null;
  implemented: boolean;
  limitations: string[];
  operations: PublicOperation[];
  authentication?: { schemes: PublicAuthentication[]; baseUrl: string | null; baseUrlOverridable: true };
  version?: string;
  rateLimits?: Record<string, { limit: number; per: string; scope: 'connection' | 'connector' }>;
}

/** One scheme as the catalogue publishes it: what its type publishes, between the fields every scheme has. */
function publicScheme(scheme: AuthScheme, index: number): PublicAuthentication {
  const type = schemeType(scheme);
  return {
    id: scheme.id,
    type: scheme.type,
    ...type.catalogue(scheme),
    default: index === 0,
    supplies: type.supplies(scheme),
  };
}

function operation(connector: Connector, action: Action): PublicOperation {
  const budget = budgetOf(connector, action);
  return {
    key: action.key,
    label: action.label,
    description: action.description ?? null,
    entity: entityId(action.entity) ?? null,
    mode: action.direction,
    approvalRequired: approvalOf(action) !== 'none',
    approval: approvalOf(action),
    effect: { ...effectOf(action) },
    billable: action.billable ?? false,
    retry: retryPolicy(action),
    ...(action.direction === 'source' && action.incremental
      ? {
          incremental: {
            cursorField: action.incremental.cursorField,
            checkpointVersion: checkpointDeclaration(action.incremental).version,
          },
        }
      : {}),
    ...(budget ? { rateBudget: budget } : {}),
    implemented: isImplemented(action),
    ...(action.direction === 'destination' && action.idempotencyHeader
      ? { idempotencyHeader: action.idempotencyHeader }
      : {}),
  };
}

/** A declared provider webhook: its records' data type, the budget its lifecycle's calls draw on. */
function triggerOperation(connector: Connector, trigger: Trigger): PublicOperation {
  const budget = trigger.budget ?? (Object.hasOwn(connector.rateLimits, 'default') ? 'default' : undefined);
  return {
    key: trigger.key,
    label: trigger.label,
    description: trigger.description ?? null,
    entity: entityId(trigger.entity) ?? null,
    mode: 'trigger',
    approvalRequired: false,
    approval: 'none',
    ...(budget ? { rateBudget: budget } : {}),
    implemented: true,
  };
}

export function catalogueEntry(connector: Connector): PublicConnector {
  return {
    key: connector.key,
    name: connector.name,
    category: connector.category,
    categoryLabel: CATEGORIES[connector.category],
    summary: connector.summary,
    status: connector.status,
    vendor: connector.vendor,
    documentationUrl: connector.documentationUrl ?? null,
    implemented: connector.actions.every(isImplemented),
    limitations: [...connector.limitations],
    operations: [
      ...connector.actions.map((action) => operation(connector, action)),
      ...connector.triggers.map((trigger) => triggerOperation(connector, trigger)),
    ].sort((a, b) => compareText(a.key, b.key)),
    authentication: {
      schemes: connector.auth.map(publicScheme),
      baseUrl: connector.baseUrl ?? null,
      baseUrlOverridable: true,
    },
    version: connector.version,
    rateLimits: Object.fromEntries(
      Object.entries(connector.rateLimits)
        .sort(byKey)
        .map(([name, budget]) => [name, { limit: budget.limit, per: budget.per, scope: budget.scope ?? 'connection' }]),
    ),
  };
}
