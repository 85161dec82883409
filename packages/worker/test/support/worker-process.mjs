// A worker in a process of its own, as a machine of a fleet runs it: the built package, the
// insurance connector with a budget no test reaches. Tells its parent over IPC when it is ready
// and each run it takes and finishes; SIGTERM drains it.
import { createInsuranceConnector } from '@plugboard/connector-insurance';
import { startWorker } from '../../dist/index.js';

const [redis, postgres, apiKey, lockDurationMs] = process.argv.slice(2);
const connector = createInsuranceConnector({ rateLimits: { default: { limit: 100_000, per: 'minute' } } });
const running = await startWorker({
  redis,
  postgres,
  connectors: [connector],
  concurrency: 1,
  resolveCredential: () => apiKey,
  lockDurationMs: Number(lockDurationMs),
});
for (const worker of Object.values(running.workers)) {
  worker.on('active', (job) => process.send({ type: 'active', id: job.id }));
  worker.on('completed', (job) => process.send({ type: 'completed', id: job.id }));
}
process.once('SIGTERM', async () => {
  await running.close();
  process.disconnect();
});
process.send({ type: 'ready' });
