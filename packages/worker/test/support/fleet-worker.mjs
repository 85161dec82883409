// A worker of the fleet test in a process of its own, as a machine runs it: the built package
// with the exactly-once sink, the Descript connector (reads) and the insurance connector
// (billable writes) with a budget no test reaches. Tells its parent over IPC when it is ready and
// each run it takes and finishes; SIGTERM drains it.
import { descript } from '@plugboard/connector-descript';
import { createInsuranceConnector } from '@plugboard/connector-insurance';
import { startWorker } from '../../dist/index.js';

const [redis, postgres, descriptToken, insuranceKey, lockDurationMs] = process.argv.slice(2);
const insurance = createInsuranceConnector({ rateLimits: { default: { limit: 100_000, per: 'minute' } } });
const running = await startWorker({
  redis,
  postgres,
  connectors: [descript, insurance],
  concurrency: 1,
  // Reads name connections `drive-*`; writes, `insurer-*`.
  resolveCredential: (id) => (id.startsWith('drive-') ? descriptToken : insuranceKey),
  lockDurationMs: Number(lockDurationMs),
  sink: 'postgres',
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
