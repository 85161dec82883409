import { createTransport } from '@plugboard/sdk';
import { recordScenario, type RecordResult } from '../../src/index.js';
import { sample } from './connector.js';
import { startSampleProvider } from './provider.js';
import { account, invoiceCreate, invoiceOverQuota, tasksFull, tasksSince } from './scenarios.js';

/**
 * Records every sample scenario against a fresh sample provider, in the order
 * the incremental pair needs: the first run, two tasks more, the second run
 * from the first run's checkpoint.
 */
export async function recordSampleFixtures(fixturesDir: string, token: string): Promise<RecordResult[]> {
  const provider = await startSampleProvider({ token });
  // The invoice scenarios run in production, against this provider on 127.0.0.1: let loopback through.
  const transport = createTransport({ via: 'fetch', network: { allow: ['127.0.0.0/8'] } });
  try {
    const record = (scenario: typeof tasksFull) =>
      recordScenario({
        connector: sample,
        scenario,
        fixturesDir,
        baseUrl: provider.baseUrl,
        credential: token,
        transport,
      });
    const results = [await record(tasksFull)];
    provider.addTasks(2);
    const checkpoint = (results[0]!.fixture.outcome as { checkpoint?: unknown }).checkpoint;
    if (JSON.stringify(checkpoint) !== JSON.stringify(tasksSince.checkpoint)) {
      throw new Error(`tasks-full ended at ${JSON.stringify(checkpoint)}; tasks-since must start there`);
    }
    results.push(
      await record(tasksSince),
      await record(account),
      await record(invoiceCreate),
      await record(invoiceOverQuota),
    );
    return results;
  } finally {
    await transport.close();
    await provider.close();
  }
}
