import { afterAll, beforeAll, expect, it } from 'vitest';
import { PluginPool } from '../src/queue/plugin-pool.js';
import { npmFolder, type PluginFolder } from '../../runtime/test/support/plugins.js';
import { pidConnector } from './support/pid-plugins.js';

/** The pool's count bound with first runs of two plugins at once, on real plugin processes. */

let folder: PluginFolder;
beforeAll(async () => {
  folder = await npmFolder(
    ['alpha', 'beta', 'gamma'].map((key) => ({ name: `connector-${key}`, entry: pidConnector(key) })),
  );
});
afterAll(async () => {
  await folder?.cleanup();
});

async function pidOf(pool: PluginPool, key: string): Promise<number> {
  const lease = (await pool.lease(key))!;
  try {
    return (await lease.plugin.usage())!.pid;
  } finally {
    lease.release();
  }
}

it('keeps within maxPlugins when two plugins start at once while the idle one ends', async () => {
  const pool = await PluginPool.open(folder.dir, {}, { maxPlugins: 1 });
  try {
    await pidOf(pool, 'alpha');
    // Both first runs come while alpha is idle: one of them ends it, and neither may pass the bound.
    const [beta, gamma] = await Promise.all([pidOf(pool, 'beta'), pidOf(pool, 'gamma')]);
    expect(beta).not.toBe(gamma);
    // One process is kept: the other plugin's next run needs a new one.
    const again = [await pidOf(pool, 'beta'), await pidOf(pool, 'gamma')];
    expect(again.filter((pid) => pid === beta || pid === gamma)).toHaveLength(1);
  } finally {
    await pool.close();
  }
});
