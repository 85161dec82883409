import type { z } from 'zod';
import { checkpointDeclaration } from '../checkpoint.js';
import type { SourceContext } from '../context.js';
import type { DestinationAction, Page, SourceAction } from '../definition/action.js';
import { type ConnectorError, SchemaMismatchError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { Redactor } from '../secrets.js';
import { zodIssues } from '../validation.js';
import type { RunContext } from './action-context.js';
import { safeError } from './failure.js';
import { parseOrThrow } from './prepare.js';
import type { Prepared } from './prepared.js';

/**
 * One run of an action's code, once started: what it yields is checked here before it goes on.
 * Every record goes on as the entity schema's output (zod's, defaults applied and unknown keys as
 * the schema says), with no secret of the run's echoed in it; every checkpoint matches the
 * action's checkpoint schema; whatever escapes is a redacted `ConnectorError`.
 */
export class ActionRun {
  /** A migrated checkpoint, until the first page carries it (whether or not that page moves it). */
  private migrated: unknown;
  private readonly checkpointSchema: z.ZodType | undefined;

  constructor(
    readonly prepared: Prepared,
    readonly context: RunContext,
    private readonly http: HttpClient,
    private readonly redactor: Redactor,
    readonly signal: AbortSignal,
  ) {
    this.migrated = prepared.migrated ? prepared.checkpoint : undefined;
    const { action } = prepared;
    this.checkpointSchema =
      action.direction === 'source' ? checkpointDeclaration(action.incremental).schema : undefined;
  }

  /** A destination's result, as its one page. */
  async written(): Promise<Page> {
    const { action, input } = this.prepared;
    const result = await (action as DestinationAction).write!(this.context, input);
    return { records: this.valid([result]) };
  }

  /** A source's pages as its code yields them, unchecked. */
  source(): AsyncIterable<Page> {
    const { action, input } = this.prepared;
    return (action as SourceAction).read!(this.context as SourceContext, input);
  }

  /** A source's page as it goes on: checked, and carrying a migrated checkpoint when it is the first. */
  checked(page: Page): Page {
    this.signal.throwIfAborted();
    const { checkpointSchema } = this;
    if (checkpointSchema && page.checkpoint !== undefined) {
      const { connector, action } = this.prepared;
      parseOrThrow(
        checkpointSchema,
        page.checkpoint,
        (error) =>
          new SchemaMismatchError(`${connector.key} ${action.key} (checkpoint)`, zodIssues(error, 'checkpoint'), {
            requestId: this.http.lastRequestId,
          }),
      );
    }
    const checkpoint = page.checkpoint ?? this.migrated;
    this.migrated = undefined;
    const records = this.valid(page.records);
    return checkpoint === undefined ? { records } : { records, checkpoint };
  }

  /** What escapes the run: a `ConnectorError` with no secret in it. */
  failure(error: unknown): ConnectorError {
    const { connector, action } = this.prepared;
    return safeError(error, this.redactor, connector, action, this.signal);
  }

  /** The records as the entity schema gives them back, after an echoed secret is taken out. */
  private valid(page: unknown[]): unknown[] {
    const { redactor } = this;
    const { connector, action } = this.prepared;
    // A provider that echoes the credential must not pass it on into the flow's data.
    // One look over the page finds an echoed secret; only a page that holds one is copied record by record.
    const records = holdsSecret(redactor, page) ? page.map((record) => redactor.redactValues(record)) : page;
    const valid: unknown[] = new Array(records.length);
    for (let index = 0; index < records.length; index += 1) {
      const result = action.entity.safeParse(records[index]);
      if (!result.success)
        throw new SchemaMismatchError(
          `${connector.key} ${action.key}`,
          zodIssues(result.error, action.direction === 'source' ? `records.${index}` : undefined),
          { requestId: this.http.lastRequestId },
        );
      valid[index] = result.data;
    }
    return valid;
  }
}

/**
 * Whether any record of the page holds one of the run's secrets, in any of its forms, in a key or
 * a string: a flat record (the common case) is looked at key by key, anything nested through the
 * redactor's walk. A run that holds no secret finds none at once (every string is shorter than a
 * secret it does not hold).
 */
function holdsSecret(redactor: Redactor, page: unknown[]): boolean {
  for (const record of page) {
    if (typeof record === 'string') {
      if (redactor.containsSecret(record)) return true;
    } else if (record !== null && typeof record === 'object' && Object.getPrototypeOf(record) === Object.prototype) {
      for (const key in record) {
        if (!Object.hasOwn(record, key)) continue;
        const value = (record as Record<string, unknown>)[key];
        if (redactor.containsSecret(key)) return true;
        if (typeof value === 'string') {
          if (redactor.containsSecret(value)) return true;
        } else if (typeof value === 'object' && value !== null && redactor.containsSecretIn(value)) return true;
      }
    } else if (redactor.containsSecretIn(record)) return true;
  }
  return false;
}
