import { once } from 'node:events';
import { join, resolve } from 'node:path';
import type { Connector } from '@plugboard/sdk';
import { createHostTransport } from '@plugboard/sdk/host';
import type { KeptSubscription, StartPoll, StartRun, TriggerConfig } from '@plugboard/triggers';
import { messagesLog } from '../action-args.js';
import { environmentCredential } from '../credential-variable.js';
import type { Invocation } from '../invocation.js';
import { writeJsonLine } from '../io.js';
import { metricsOptions } from '../metrics-options.js';
import { allowedNetwork } from '../network.js';
import { ensureWritable, stateFolder } from '../state.js';
import { portInUse, portOption, UsageError } from '../usage.js';

/**
 * `plugboard triggers serve`, `plugboard triggers deliveries` and `plugboard triggers polls`:
 * `@plugboard/triggers`'s receiver wired to the command line. The runs and polls it starts go
 * through the executor with the connectors found as every command finds them (those the
 * triggers' provider webhooks name too, which the receiver subscribes with), the credential
 * from PLUGBOARD_CREDENTIAL and the state folder's stores (checkpoints included; the receipts,
 * deliveries and poll states in its `triggers` folder). With --redis and --postgres the receiver is
 * in queued mode: receipts and dedupe in PostgreSQL, runs on the worker fleet's queue, polls its
 * schedules.
 */

/**
 * The connector of each key the triggers' runs and webhooks, the active polls and the webhook
 * subscriptions the state folder keeps (to end them) name, found before anything listens.
 */
async function runConnectors(
  { values, findConnector }: Invocation,
  config: TriggerConfig,
  kept: readonly KeptSubscription[],
): Promise<Connector[]> {
  const keys = new Set([
    ...config.triggers.flatMap((trigger) => (trigger.run ? [trigger.run.connector] : [])),
    ...config.triggers.flatMap((trigger) => (trigger.webhook ? [trigger.webhook.connector] : [])),
    ...config.polls.flatMap((poll) => (poll.status === 'active' ? [poll.run.connector] : [])),
    ...kept.map((subscription) => subscription.webhook.connector),
  ]);
  const connectors: Connector[] = [];
  for (const key of keys) {
    const found = await findConnector({
      key,
      connector: values.connector as string | undefined,
      plugins: values.plugins as string | undefined,
    });
    connectors.push(found.connector);
  }
  return connectors;
}

/** Runs of accepted deliveries and polls, and the webhooks' calls, through the executor; none when nothing runs. */
async function runStarter(invocation: Invocation, config: TriggerConfig, stateDir: string) {
  const [{ executorPollStarter, executorRunStarter, listSubscriptions }, { fileStore }] = await Promise.all([
    import('@plugboard/triggers'),
    import('@plugboard/runtime'),
  ]);
  const kept = await listSubscriptions(join(stateDir, 'triggers'));
  const connectors = await runConnectors(invocation, config, kept);
  if (connectors.length === 0) return undefined;
  const { io, messages } = invocation;
  const transport = createHostTransport({ via: 'http', network: { allow: allowedNetwork(io.env) } });
  const host = {
    connectors,
    resolveCredential: environmentCredential(io),
    stores: fileStore(stateDir),
    transport,
    log: messagesLog(messages),
  };
  const startRun: StartRun = executorRunStarter(host);
  // The records a poll reads are acknowledged as read: the command keeps no output of them.
  const startPoll: StartPoll = executorPollStarter(host);
  return { startRun, startPoll, host, close: () => transport.close() };
}

/** `--redis` and `--postgres`: queued mode with both, the embedded default with neither. */
function queueOption(values: Record<string, unknown>): { redis: string; postgres: string } | undefined {
  const redis = values.redis as string | undefined;
  const postgres = values.postgres as string | undefined;
  if (redis === undefined && postgres === undefined) return undefined;
  if (redis === undefined)
    throw new UsageError('triggers serve --postgres needs --redis URL too: queued mode takes both');
  if (postgres === undefined)
    throw new UsageError('triggers serve --redis needs --postgres URL too: queued mode takes both');
  return { redis, postgres };
}

/** Queued mode: the fleet's servers, the runs checked against the connectors found; or the state folder and the runs started here. */
async function receiverMode(invocation: Invocation, config: TriggerConfig) {
  const queue = queueOption(invocation.values);
  if (queue) {
    // Queued mode keeps no webhook subscription (no state folder): the receiver refuses a webhook trigger.
    const connectors = await runConnectors(invocation, config, []);
    return { options: { queue: { ...queue, connectors } }, where: 'receipts in PostgreSQL, runs on the queue' };
  }
  const { io } = invocation;
  const folder = stateFolder(io, invocation.values.state as string | undefined, 'triggers serve');
  await ensureWritable(folder, 'the receipts and deliveries');
  const runs = await runStarter(invocation, config, folder.dir);
  return {
    options: {
      stateDir: join(folder.dir, 'triggers'),
      ...(runs ? { startRun: runs.startRun, startPoll: runs.startPoll, webhooks: runs.host } : {}),
    },
    where: `state in ${folder.dir}`,
    close: runs?.close,
  };
}

/** The port that was in use, named by its flag: the metrics' when it was theirs (they listen first). */
function addressInUse(error: unknown, portText: string, metricsPort: number | undefined): UsageError {
  const { port } = error as { port?: number };
  return metricsPort !== undefined && port === metricsPort && String(port) !== portText
    ? portInUse(String(port), '--metrics-port')
    : portInUse(portText);
}

/** `--receipt-retention-days`: a whole number of days up to the longest retention, when given. */
function receiptRetention(text: unknown, longest: number): { receiptRetentionDays?: number } {
  if (text === undefined) return {};
  const days = Number(text);
  if (!(/^\d{1,5}$/.test(String(text)) && days >= 1 && days <= longest))
    throw new UsageError(`--receipt-retention-days must be a whole number from 1 to ${longest}`);
  return { receiptRetentionDays: days };
}

export async function serveCommand(invocation: Invocation): Promise<void> {
  const { values, io, messages, signal } = invocation;
  const { port, text: portText } = portOption(values.port);
  if (typeof values.config !== 'string' || values.config === '') throw new UsageError('--config must name a file');
  const metrics = metricsOptions(values);
  const { createReceiver, parseTriggerConfig, readTriggerConfig, TRIGGER_LIMITS } = await import('@plugboard/triggers');
  const retained = receiptRetention(values['receipt-retention-days'], TRIGGER_LIMITS.inputRetentionDays);
  const config = parseTriggerConfig(await readTriggerConfig(resolve(io.cwd, values.config)));
  const mode = await receiverMode(invocation, config);
  const receiver = createReceiver({
    config,
    env: io.env,
    ...mode.options,
    ...metrics,
    ...retained,
    log: (entry) => messages.say({ ...entry, level: entry.level === 'debug' ? 'info' : entry.level }),
  });
  try {
    await receiver.listen(port, String(values.host ?? '127.0.0.1'));
  } catch (error) {
    await mode.close?.();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw addressInUse(error, portText, metrics.metricsPort);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`--host ${String(values.host)}: not an address of this machine`);
    throw error;
  }
  for (const address of receiver.addresses()) writeJsonLine(io.stdout, address);
  for (const poll of receiver.polls()) writeJsonLine(io.stdout, poll);
  if (receiver.metricsUrl) messages.say({ level: 'info', message: `metrics at ${receiver.metricsUrl}` });
  messages.say({
    level: 'info',
    message: `receiving deliveries at ${receiver.url} (Ctrl+C stops it); ${mode.where}`,
  });
  try {
    if (!signal.aborted) await once(signal, 'abort');
  } finally {
    await receiver.close();
    await mode.close?.();
  }
}

export async function deliveriesCommand({ values, io }: Invocation): Promise<void> {
  const { listDeliveries, listQueuedDeliveries } = await import('@plugboard/triggers');
  const trigger = values.trigger as string | undefined;
  const only = trigger ? { triggerId: trigger } : {};
  const postgres = values.postgres as string | undefined;
  const receipts =
    postgres === undefined
      ? listDeliveries(
          join(stateFolder(io, values.state as string | undefined, 'triggers deliveries').dir, 'triggers'),
          only,
        )
      : listQueuedDeliveries({ postgres, ...only });
  for await (const receipt of receipts) writeJsonLine(io.stdout, receipt);
}

export async function pollsCommand({ values, io }: Invocation): Promise<void> {
  const { listPolls, listQueuedPolls } = await import('@plugboard/triggers');
  const only = values.poll as string | undefined;
  const postgres = values.postgres as string | undefined;
  const states =
    postgres === undefined
      ? await listPolls(join(stateFolder(io, values.state as string | undefined, 'triggers polls').dir, 'triggers'))
      : await listQueuedPolls({ postgres });
  for (const state of states) if (only === undefined || state.pollTriggerId === only) writeJsonLine(io.stdout, state);
}
