import { UsageError } from './usage.js';

/** `--metrics-port` (a whole number from 0 to 65535) and `--metrics-host`, as the worker and the receiver take them. */
export function metricsOptions(values: Record<string, unknown>): { metricsPort?: number; metricsHost?: string } {
  if (values['metrics-port'] === undefined) return {};
  const port = Number(values['metrics-port']);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError('--metrics-port must be a whole number from 0 to 65535');
  return { metricsPort: port, ...(values['metrics-host'] ? { metricsHost: values['metrics-host'] as string } : {}) };
}
