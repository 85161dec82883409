// What a benchmark's page costs in round trips: Redis commands by name (INFO commandstats) and
// PostgreSQL transactions committed in the database (pg_stat_database). Not a benchmark itself.
import { Redis } from 'ioredis';

async function redisCalls(url) {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const text = await client.info('commandstats');
    const calls = new Map();
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1], Number(match[2]));
    return calls;
  } finally {
    client.disconnect();
  }
}

async function commits(pool) {
  // The statistics collector reports a backend's counts when it is idle: ask for a fresh snapshot.
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query(
    'SELECT xact_commit::bigint AS commits FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0].commits);
}

/** A reading to compare with a later one (`roundTripsSince`). */
export async function roundTrips(redisUrl, pool) {
  return { redis: await redisCalls(redisUrl), commits: await commits(pool) };
}

/** Redis commands and PostgreSQL commits a page since `before`, as one line. */
export async function roundTripsSince(before, redisUrl, pool, pages) {
  const after = await roundTrips(redisUrl, pool);
  const per = (value) => Math.round((value / pages) * 100) / 100;
  const redis = [...after.redis]
    .map(([name, calls]) => [name, calls - (before.redis.get(name) ?? 0)])
    .filter(([, calls]) => calls / pages >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, calls]) => `${name} ${per(calls)}`);
  return `  a page: Redis ${redis.join(', ')}; PostgreSQL commits ${per(after.commits - before.commits)}`;
}
