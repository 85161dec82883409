import { z } from 'zod';
import type { ConnectionInput } from './connection.js';
import { type Action, defineAction, type DestinationAction, type Environment } from './definition/action.js';
import { budgetOf, type Connector } from './definition/connector.js';
import { type FieldOptions, inputField, type OptionsPage, optionValueSchema } from './definition/options.js';
import { SchemaMismatchError } from './errors.js';
import { excerpt } from './excerpt.js';
import { type PreparedRun, prepareRun, UnknownActionError } from './run.js';
import { zodIssues } from './validation.js';

/**
 * Listing a field's options runs as an action of its own, a read that returns one page: through
 * `prepareRun` (the query checked before anything is sent), the gate and `runPrepared` (the
 * action's rate budget, the network policy, timeouts, redaction, the page checked), wherever the
 * connector runs. A person waits on a picker: its requests time out sooner and it waits out no
 * long rate limit.
 */

/** The longest an options request may take, unless the action's own timeout is shorter. */
export const OPTIONS_TIMEOUT_MS = 10_000;
/** The longest rate-limit wait an options listing accepts, unless the action accepts less. */
export const OPTIONS_MAX_WAIT_SECONDS = 5;
/** A failed options request is tried once more: a person is waiting. */
export const OPTIONS_RETRY = { retries: 1 };

const MAX_ITEMS = 1000;

/** The query `list` receives: bounded, nothing else. */
const Query = z.strictObject({
  search: z.string().max(200).optional(),
  cursor: z.string().min(1).max(4096).optional(),
});

/** The key the listing of a field's options runs under, in logs and errors. */
export function optionsKey(actionKey: string, field: string): string {
  return `${actionKey} options for ${field}`;
}

/** The field has no options (or the action no such field): refused as an unknown action is, before anything is sent. */
export class NoOptionsError extends UnknownActionError {
  constructor(connector: Connector, action: Action, field: string) {
    super(connector, action.key);
    const fields = Object.keys(action.options ?? {});
    this.message = `connector '${connector.key}': action '${action.key}' has no options for input field '${excerpt(field)}'; ${fields.length ? `fields with options: ${fields.join(', ')}` : 'none of its fields has options'}`;
  }
}

/** The page's shape: each value a value of the field, labels and the cursor bounded. */
function pageSchema(field: z.ZodType): z.ZodType<OptionsPage> {
  return z.object({
    items: z
      .array(
        z.object({
          value: field,
          label: z.string().max(1000),
          description: z.string().max(4000).optional(),
        }),
      )
      .max(MAX_ITEMS),
    nextCursor: z.string().min(1).max(4096).optional(),
  }) as unknown as z.ZodType<OptionsPage>;
}

/** Any option page: values strings or numbers, the bounds of every page. */
const ANY_PAGE = pageSchema(z.union([z.string(), z.number()]));

/**
 * A page that came from a plugin's process, checked again here: a plugin's code may rewrite what
 * its process sends past the checks made there, and the host holds no schema of the field.
 */
export function checkedOptionsPage(page: unknown, subject: string): OptionsPage {
  const result = ANY_PAGE.safeParse(page);
  if (!result.success) throw new SchemaMismatchError(subject, zodIssues(result.error));
  return result.data;
}

/** Keeps the items whose label contains the search, for a provider that cannot search. */
function byLabel(page: OptionsPage, search: string): OptionsPage {
  if (!Array.isArray(page?.items)) return page;
  const wanted = search.toLowerCase();
  return {
    ...page,
    items: page.items.filter((item) => typeof item?.label === 'string' && item.label.toLowerCase().includes(wanted)),
  };
}

function listing(connector: Connector, action: Action, field: string, declared: FieldOptions): DestinationAction {
  const budget = budgetOf(connector, action);
  return defineAction({
    key: optionsKey(action.key, field),
    label: `Options for ${field} of ${action.label}`,
    direction: 'destination',
    effect: 'read',
    entity: pageSchema(optionValueSchema(inputField(action.input, field)!)),
    input: Query,
    ...(budget === undefined ? {} : { budget }),
    maxRetryAfterSeconds: Math.min(action.maxRetryAfterSeconds ?? OPTIONS_MAX_WAIT_SECONDS, OPTIONS_MAX_WAIT_SECONDS),
    timeoutMs: Math.min(action.timeoutMs ?? OPTIONS_TIMEOUT_MS, OPTIONS_TIMEOUT_MS),
    async write(ctx, query) {
      const page = await declared.list(ctx, query);
      return declared.searchable || !query.search ? page : byLabel(page, query.search);
    },
  });
}

/** A connector whose actions are the listings of the given one's options; made once per connector. */
const listers = new WeakMap<Connector, Connector>();

function listerOf(connector: Connector): Connector {
  let lister = listers.get(connector);
  if (lister) return lister;
  const actions = new Map<string, Action>();
  for (const action of connector.actions) {
    for (const [field, declared] of Object.entries(
      (action.options ?? {}) as Record<string, FieldOptions | undefined>,
    )) {
      if (declared) actions.set(optionsKey(action.key, field), listing(connector, action, field, declared));
    }
  }
  lister = { ...connector, actions: [...actions.values()], action: (key) => actions.get(key) };
  listers.set(connector, lister);
  return lister;
}

/**
 * Prepares the listing of one field's options: the action and field must declare options, the
 * query is checked and the connection resolved; nothing is sent. Run it as any prepared run
 * (`passGate`, then `runPrepared`): it yields one page holding the `OptionsPage`.
 */
export function prepareOptions(
  connector: Connector,
  actionKey: string,
  field: string,
  options: { query?: unknown; connection?: ConnectionInput; environment?: Environment },
): PreparedRun {
  const action = connector.action(actionKey);
  if (!action) throw new UnknownActionError(connector, actionKey);
  if (!Object.hasOwn(action.options ?? {}, field)) throw new NoOptionsError(connector, action, field);
  return prepareRun(listerOf(connector), optionsKey(actionKey, field), {
    input: options.query ?? {},
    ...(options.connection ? { connection: options.connection } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
  });
}
