import {
  CancelledError,
  type ConnectionCredential,
  ConnectionConfigError,
  excerpt,
  type LogEntry,
  type LogSink,
  type Page,
  type ProgressEvent,
} from '@plugboard/sdk';
import {
  type Clock,
  credentialSecrets,
  Redactor,
  type RunSettings,
  stderrSink,
  systemClock,
} from '@plugboard/sdk/host';
import type { Exchange } from './exchanges.js';
import { PluginKilledError } from './plugin-killed.js';
import type { PluginPort } from './plugin-port.js';
import { type ChildMessage, FIRST_PAGES, type HostMessage, MAX_RUN_NOTES } from './protocol.js';
import type { RemotePlan } from './remote-plan.js';
import { hostTokenSource, sentCredential, tokenAnswers } from './token-asks.js';
import { fromWire } from './wire.js';

/**
 * A run in a plugin's process as the host sees it: the run is started with this run's credential
 * only; its pages come one at a time as the caller takes them (the plugin reads at most one page
 * ahead of the host's acknowledgements); its log and progress are redacted again and bounded; a
 * cancelled run that does not end is killed after the grace period.
 */

type Item = { page: Page } | { error: Error } | { done: true };

/** A progress update from the plugin as the caller gets it in-process: redacted, its label a short excerpt, the host's time. */
function progressOf(event: unknown, redactor: Redactor, connector: string, action: string, now: number): ProgressEvent {
  const safe = redactor.redact(typeof event === 'object' && event !== null ? event : {}) as ProgressEvent;
  return {
    ...safe,
    ...(typeof safe.label === 'string' ? { label: excerpt(safe.label) } : {}),
    connector,
    action,
    time: new Date(now).toISOString(),
  };
}

/** A page from the plugin: its records an array, a credential echoed anywhere in it taken out. */
function safePage(page: unknown, redactor: Redactor): Page {
  const records = (page as { records?: unknown } | null)?.records;
  if (!Array.isArray(records)) throw new TypeError('a page from the plugin has no records array');
  const checkpoint = (page as { checkpoint?: unknown }).checkpoint;
  const clean = redactor.containsSecretIn(records) ? records.map((record) => redactor.redactValues(record)) : records;
  return checkpoint === undefined
    ? { records: clean }
    : { records: clean, checkpoint: redactor.redactValues(checkpoint) };
}

/** One run's exchange with the plugin's process: what it received, what it may still receive, how it ends. */
class RemoteRun {
  private readonly queue: Item[] = [];
  private wake: (() => void) | undefined;
  private received = 0;
  /** The pages the host asked for: the first and one ahead, then one more for each it took. */
  private allowed = FIRST_PAGES;
  private notes = 0;
  private cancelRequested = false;
  private grace: NodeJS.Timeout | undefined;
  private readonly exchange: Exchange;
  private readonly answerTokens: ReturnType<typeof tokenAnswers>;
  private readonly subject: string;
  private readonly clock: Clock;

  constructor(
    private readonly port: PluginPort,
    private readonly plan: RemotePlan,
    private readonly settings: RunSettings,
    credential: ConnectionCredential,
    private readonly redactor: Redactor,
    private readonly sink: LogSink,
  ) {
    this.subject = `${port.description.key} ${plan.action.key}`;
    this.clock = settings.clock ?? systemClock;
    const tokens = hostTokenSource(port, plan, credential, settings, redactor, sink);
    this.exchange = port.open((id) => this.runMessage(id, sentCredential(credential, tokens)), {
      onMessage: (message) => this.take(message),
      onKilled: (error) =>
        this.push({
          error: this.cancelRequested
            ? new CancelledError(`${this.subject}: the run was cancelled; ${error.message}`)
            : error,
        }),
    });
    this.answerTokens = tokenAnswers(tokens, this.exchange, redactor, (reason, message) => port.kill(reason, message));
  }

  /** The message that starts the run in the plugin's process, with what it gets of the credential. */
  private runMessage(id: string, sent: ReturnType<typeof sentCredential>): HostMessage {
    const { settings } = this;
    return {
      type: 'run',
      id,
      plan: this.plan.id,
      ...sent,
      ...(settings.approval ? { approval: settings.approval } : {}),
      now: new Date(this.clock.now()).toISOString(),
      logLevel: settings.logLevel ?? (settings.log ? 'info' : 'warn'),
      ...(settings.retry ? { retry: settings.retry } : {}),
      ...(settings.idempotencyKey === undefined ? {} : { idempotencyKey: settings.idempotencyKey }),
    };
  }

  private push(item: Item): void {
    this.queue.push(item);
    this.wake?.();
  }

  /** The next page, the end or the failure, once the plugin's process sent it. */
  async next(): Promise<Item> {
    while (this.queue.length === 0) await new Promise<void>((resolveWait) => (this.wake = resolveWait));
    return this.queue.shift()!;
  }

  private take(message: ChildMessage): void {
    this.exchange.touch();
    switch (message.type) {
      case 'page':
        // Its Plugboard process sends only the pages the host asked for: more means the plugin wrote them.
        this.received += 1;
        if (this.received > this.allowed)
          this.port.kill(
            'forged',
            `sent more pages than the host asked for (${this.received} of ${this.allowed}); its process was killed`,
          );
        else this.push({ page: safePage(message.page, this.redactor) });
        break;
      case 'progress':
      case 'log':
        this.note(message);
        break;
      case 'tokens':
        this.answerTokens(message, this.clock.now());
        break;
      case 'done':
        this.push({ done: true });
        break;
      case 'error':
        this.push({ error: fromWire(message.error, this.redactor, this.port.plugin) });
        break;
      default:
        this.push({
          error: new PluginKilledError(this.port.plugin, 'forged', `sent '${String(message.type)}' during a run`, ''),
        });
    }
  }

  /** A log entry or progress update, passed on redacted up to the bound, which is said once. */
  private note(message: Extract<ChildMessage, { type: 'progress' | 'log' }>): void {
    const { key } = this.port.description;
    const action = this.plan.action.key;
    this.notes += 1;
    if (this.notes > MAX_RUN_NOTES) {
      if (this.notes === MAX_RUN_NOTES + 1)
        this.sink({
          level: 'warn',
          message: `${this.subject}: more than ${MAX_RUN_NOTES} log entries and progress updates; the rest of this run's are dropped`,
          time: new Date(this.clock.now()).toISOString(),
          connector: key,
          action,
        });
    } else if (message.type === 'log')
      this.sink({ ...(this.redactor.redact(message.entry) as LogEntry), connector: key, action });
    else this.settings.onProgress?.(progressOf(message.event, this.redactor, key, action, this.clock.now()));
  }

  /** The caller works on a page: the plugin's process waits for the host, which counts no idle time meanwhile. */
  hold(): void {
    this.exchange.pause();
  }

  /** The caller took a page: the plugin's process may send one more, and its idle time counts again. */
  pull(): void {
    this.exchange.touch();
    this.allowed += 1;
    this.exchange.send({ type: 'pull', id: this.exchange.id });
  }

  /** Asks the process to stop the run; one that does not stop within the grace period is killed. */
  cancel(): void {
    const grace = this.port.limits.cancelGraceMs;
    this.cancelRequested = true;
    this.exchange.send({ type: 'cancel', id: this.exchange.id });
    this.grace = setTimeout(
      () =>
        this.port.kill(
          'cancel_ignored',
          `did not stop its run within ${grace} ms of being cancelled; its process was killed`,
        ),
      grace,
    );
  }

  /** Ends the exchange; a run the caller stopped early (a destination's one page taken) is cancelled, leaving nothing running. */
  end(finished: boolean): void {
    if (this.grace) clearTimeout(this.grace);
    if (!finished) this.exchange.send({ type: 'cancel', id: this.exchange.id });
    this.exchange.end();
  }
}

/** The run's credential, and a redactor of it and the host's secrets: the plugin's process gets this run's credential only. */
async function runSecrets(
  connector: string,
  settings: RunSettings,
): Promise<{ credential: ConnectionCredential; redactor: Redactor }> {
  const credential = await settings.credential?.();
  if (!credential)
    throw new ConnectionConfigError(
      `connector '${connector}': the connection has no credential; the host's secret resolver returned none`,
    );
  const redactor = new Redactor(settings.secrets);
  for (const part of credentialSecrets(credential)) redactor.add(part);
  return { credential, redactor };
}

/** Runs a prepared run in the plugin's process, one page at a time as the caller asks for them. */
export async function* runRemote(port: PluginPort, plan: RemotePlan, settings: RunSettings): AsyncGenerator<Page> {
  const { credential, redactor } = await runSecrets(port.description.key, settings);
  const sink: LogSink = settings.log ?? stderrSink;
  await port.ensure();
  const signal = settings.signal;
  signal?.throwIfAborted();
  const run = new RemoteRun(port, plan, settings, credential, redactor, sink);
  const cancel = () => run.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  let finished = false;
  try {
    for (;;) {
      const item = await run.next();
      if ('page' in item) {
        run.hold();
        yield item.page;
        run.pull();
        continue;
      }
      finished = true;
      if ('error' in item) throw item.error;
      return;
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    run.end(finished);
  }
}
