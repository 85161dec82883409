// A host's credential store shared through Redis, as a fleet on several machines keeps its
// token sets (a file store serves the processes of one machine only): for
// tools/bench/p9-refresh.mjs and the token child. An entry is the JSON of `{ version, tokens }`
// under `<prefix><connection id>`; compare-and-set is one script, so two processes never both
// write over the version they read.
import { Redis } from 'ioredis';

const COMPARE_AND_SET = `local current = redis.call('GET', KEYS[1])
local version = 0
if current then version = cjson.decode(current).version end
if version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

/** The store, and `close` for its connection. */
export function redisCredentialStore(url, prefix = 'p9:credentials:') {
  const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  return {
    async read(connectionId) {
      const text = await client.get(`${prefix}${connectionId}`);
      return text === null ? undefined : JSON.parse(text);
    },
    async compareAndSet(connectionId, expected, next) {
      const version = expected?.version ?? 0;
      const entry = JSON.stringify({ version: version + 1, tokens: next });
      return (await client.eval(COMPARE_AND_SET, 1, `${prefix}${connectionId}`, String(version), entry)) === 1;
    },
    close: () => client.quit(),
  };
}
