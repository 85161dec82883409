// A worker of tools/bench/fleet.mjs in a process of its own, as a machine runs it: the built
// package with the exactly-once sink, one read at a time, the connectors isolated from a plugin
// folder (`plugboard worker --plugins DIR`). Tells its parent over IPC when it is ready;
// SIGTERM drains it. Not a benchmark itself.
//
//   node tools/bench/fleet-worker.mjs REDIS_URL POSTGRES_URL TOKEN PLUGINS_DIR
import { built } from './lib.mjs';

const { startWorker } = await built('packages/worker/dist/index.js');
const [redis, postgres, token, plugins] = process.argv.slice(2);
const running = await startWorker({
  redis,
  postgres,
  plugins,
  concurrency: 1,
  resolveCredential: () => token,
  sink: 'postgres',
});
process.once('SIGTERM', async () => {
  await running.close();
  process.disconnect();
});
process.send({ type: 'ready' });
