// A second process on one state folder: waits for "go" on stdin, then decides or uses the
// approval as told, and prints the outcome's code ("ok" or the refusal's) as one line.
import { fileApprovalStore } from '../../dist/index.js';

const [dir, operation, id, argument] = process.argv.slice(2);
const store = fileApprovalStore(dir);
process.stdin.once('data', async () => {
  const work = operation === 'use' ? store.use(id, argument) : store.decide(id, { decision: operation, by: argument });
  const outcome = await work.then(
    () => 'ok',
    (error) => error.code ?? String(error),
  );
  process.stdout.write(`${outcome}\n`);
  process.exit(0);
});
process.stdout.write('ready\n');
