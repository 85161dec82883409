import { once } from 'node:events';
import { join, resolve } from 'node:path';
import type { Connector } from '@plugboard/sdk';
import { createHostTransport } from '@plugboard/sdk/host';
import type { KeptSubscription, StartPoll, StartRun, TriggerConfig } from '@plugboard/triggers';
import { messagesLog } from '../action-args.js';
import { environmentCredential } from '../credential-variable.js';
import type { Invocation } from '../invocation.js';
import { writeJsonLine } from '../io.js';
import { allowedNetwork } from '../network.js';
import { ensureWritable, stateFolder } from '../state.js';
import { portInUse, portOption, UsageError } from '../usage.js';

/**
 * `plugboard triggers serve`, `plugboard triggers deliveries` and `plugboard triggers polls`:
 * `@plugboard/triggers`'s receiver wired to the command line. The runs and polls it starts go
 * through the executor with the connectors found as every command finds them (those the
 * triggers' provider webhooks name too, which the receiver subscribes with), the credential
 * from PLUGBOARD_CREDENTIAL and the state folder's stores (checkpoints included; the receipts,
 * deliveries and poll states in its `triggers` folder).
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

export async function serveCommand(invocation: Invocation): Promise<void> {
  const { values, io, messages, signal } = invocation;
  const { port, text: portText } = portOption(values.port);
  if (typeof values.config !== 'string' || values.config === '') throw new UsageError('--config must name a file');
  const folder = stateFolder(io, values.state as string | undefined, 'triggers serve');
  await ensureWritable(folder, 'the receipts and deliveries');
  const { createReceiver, parseTriggerConfig, readTriggerConfig } = await import('@plugboard/triggers');
  const config = parseTriggerConfig(await readTriggerConfig(resolve(io.cwd, values.config)));
  const runs = await runStarter(invocation, config, folder.dir);
  const receiver = createReceiver({
    config,
    stateDir: join(folder.dir, 'triggers'),
    env: io.env,
    ...(runs ? { startRun: runs.startRun, startPoll: runs.startPoll, webhooks: runs.host } : {}),
    log: (entry) => messages.say({ ...entry, level: entry.level === 'error' ? 'error' : 'info' }),
  });
  try {
    await receiver.listen(port, String(values.host ?? '127.0.0.1'));
  } catch (error) {
    await runs?.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw portInUse(portText);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`--host ${String(values.host)}: not an address of this machine`);
    throw error;
  }
  for (const address of receiver.addresses()) writeJsonLine(io.stdout, address);
  for (const poll of receiver.polls()) writeJsonLine(io.stdout, poll);
  messages.say({
    level: 'info',
    message: `receiving deliveries at ${receiver.url} (Ctrl+C stops it); state in ${folder.dir}`,
  });
  try {
    if (!signal.aborted) await once(signal, 'abort');
  } finally {
    await receiver.close();
    await runs?.close();
  }
}

export async function deliveriesCommand({ values, io }: Invocation): Promise<void> {
  const folder = stateFolder(io, values.state as string | undefined, 'triggers deliveries');
  const { listDeliveries } = await import('@plugboard/triggers');
  const trigger = values.trigger as string | undefined;
  for await (const receipt of listDeliveries(join(folder.dir, 'triggers'), trigger ? { triggerId: trigger } : {}))
    writeJsonLine(io.stdout, receipt);
}

export async function pollsCommand({ values, io }: Invocation): Promise<void> {
  const folder = stateFolder(io, values.state as string | undefined, 'triggers polls');
  const { listPolls } = await import('@plugboard/triggers');
  const only = values.poll as string | undefined;
  for (const state of await listPolls(join(folder.dir, 'triggers')))
    if (only === undefined || state.pollTriggerId === only) writeJsonLine(io.stdout, state);
}
