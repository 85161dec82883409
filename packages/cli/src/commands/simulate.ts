import { once } from 'node:events';
import { writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { portInUse, UsageError } from '../usage.js';

/**
 * `plugboard simulate <provider> [--port N] [--seed N] [--size N] [--openapi PATH]`:
 * starts a provider's local simulator on 127.0.0.1, prints where it listens and
 * the fake credential it accepts as one JSON line, and runs until interrupted.
 */

interface Simulation {
  url: string;
  credential: string;
  close(): Promise<void>;
}

type Options = { port: number; seed?: number; size?: number; openapiPath?: string };

// Simulators are private workspace packages, loaded only when asked for.
const SIMULATORS: Record<string, (options: Options) => Promise<Simulation>> = {
  async descript(options) {
    const { startDescriptSimulator } = await import('@plugboard/simulator-descript');
    const simulator = await startDescriptSimulator(options);
    return { url: simulator.url, credential: simulator.token, close: () => simulator.close() };
  },
  async insurance(options) {
    const { startInsuranceSimulator } = await import('@plugboard/simulator-insurance');
    const simulator = await startInsuranceSimulator(options);
    return { url: simulator.url, credential: simulator.apiKey, close: () => simulator.close() };
  },
};

function wholeNumber(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${option} must be a whole number, not '${text}'`);
  return Number(text);
}

export async function simulateCommand({ args, values, io, signal }: Invocation): Promise<void> {
  const [provider] = args;
  const start = provider ? SIMULATORS[provider] : undefined;
  if (!start) throw new UsageError(`name one simulator: ${Object.keys(SIMULATORS).join(' or ')}`);
  const { port, seed, size, openapi } = values as Record<string, string | undefined>;
  const options: Options = {
    port: wholeNumber('port', port) ?? 0,
    ...(seed !== undefined ? { seed: wholeNumber('seed', seed)! } : {}),
    ...(size !== undefined ? { size: wholeNumber('size', size)! } : {}),
    ...(openapi !== undefined ? { openapiPath: openapi } : {}),
  };
  let simulation: Simulation;
  try {
    simulation = await start(options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
      throw new UsageError(`the ${provider} simulator ships inside the Plugboard repository only`);
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw portInUse(String(port));
    throw error;
  }
  writeJsonLine(io.stdout, { provider, url: simulation.url, credential: simulation.credential });
  if (!signal.aborted) await once(signal, 'abort');
  await simulation.close();
}
