import { resolve } from 'node:path';
import { environmentCredential } from '../credential-variable.js';
import type { Invocation } from '../invocation.js';
import { allowedNetwork } from '../network.js';
import { metricsOptions } from '../metrics-options.js';
import { queueUrls } from '../queue-urls.js';
import { UsageError } from '../usage.js';

function concurrencyOption(text: unknown): number {
  const value = Number(text ?? '1');
  if (!Number.isInteger(value) || value < 1 || value > 1000)
    throw new UsageError('--concurrency must be a whole number from 1 to 1000');
  return value;
}

function sinkOption(text: unknown): { sink?: 'postgres' } {
  if (text === undefined) return {};
  if (text !== 'postgres') throw new UsageError('--sink must be postgres, or left out');
  return { sink: 'postgres' };
}

/** `--recycle-after`, `--memory-ceiling`, `--max-plugins`: whole numbers of 1 or more, when given. */
function poolOptions(values: Record<string, unknown>) {
  const flags = { recycleAfterRuns: 'recycle-after', memoryCeilingMb: 'memory-ceiling', maxPlugins: 'max-plugins' };
  const options: { recycleAfterRuns?: number; memoryCeilingMb?: number; maxPlugins?: number } = {};
  for (const [field, flag] of Object.entries(flags) as Array<[keyof typeof options, string]>) {
    if (values[flag] === undefined) continue;
    const value = Number(values[flag]);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new UsageError(`--${flag} must be a whole number of 1 or more`);
    options[field] = value;
  }
  return options;
}

/** Resolves when the signal is aborted (SIGTERM, SIGINT). */
function stopped(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}

/**
 * `plugboard worker`: the worker's `startWorker` with this folder's connector (or `--connector`),
 * or each of `--plugins DIR` isolated in a process of its own; the credential from
 * PLUGBOARD_CREDENTIAL. Runs until SIGTERM, then drains: the runs it holds finish.
 */
export async function workerCommand({ values, io, messages, signal, findConnector }: Invocation): Promise<void> {
  const { redis, postgres } = queueUrls(values, io, 'worker');
  const concurrency = concurrencyOption(values.concurrency);
  const sink = sinkOption(values.sink);
  const pool = poolOptions(values);
  const plugins = values.plugins as string | undefined;
  const connectors = plugins
    ? undefined
    : [(await findConnector({ connector: values.connector as string | undefined })).connector];
  const key = io.env.PLUGBOARD_CREDENTIAL_KEY;
  const { startWorker } = await import('@plugboard/worker');
  const worker = await startWorker({
    redis,
    postgres,
    ...(plugins ? { plugins: resolve(io.cwd, plugins) } : { connectors: connectors! }),
    concurrency,
    resolveCredential: environmentCredential(io),
    ...(key ? { credentialKey: Buffer.from(key, 'base64') } : {}),
    allow: allowedNetwork(io.env),
    ...sink,
    ...pool,
    ...metricsOptions(values),
  });
  if (worker.metricsUrl) messages.say({ level: 'info', message: `metrics at ${worker.metricsUrl}` });
  messages.say({ level: 'info', message: `worker ready: ${concurrency} at a time from each queue; SIGTERM drains` });
  await stopped(signal);
  messages.say({ level: 'info', message: 'draining: the runs held finish, nothing new is taken' });
  await worker.close();
}
