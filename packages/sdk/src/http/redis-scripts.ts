import type { Redis as IORedisClient } from 'ioredis';
import { LEARN_ADMITTED, learnAcquire, learnFinish } from './redis-learn-scripts.js';

/**
 * The Lua scripts that keep a shared budget in Redis, one per question, so that
 * each is atomic across processes. They are registered on the client with
 * ioredis's `defineCommand`, which runs them by SHA1 and loads them again when
 * the server does not know them. Times are the Redis server's (`TIME`, ms), so
 * machines whose clocks disagree still count one window.
 */

/** Redis server time in whole ms; `round` is `floor` or `ceil` of the microseconds. */
const now = (round: 'floor' | 'ceil') => `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.${round}(tonumber(time[2]) / 1000)`;

/** Sets a key's expiry to `ms` from now unless it already outlasts that. */
const EXTEND = `
local function extend(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end`;

/**
 * A pause of `ms` on KEYS pause, confirmed, pauses at `p`, `c`, `n`: one
 * shorter than the pause running changes nothing; a longer one replaces it and
 * asks for a probe again; one after the budget was open counts as new.
 * Leaves the number of pauses so far in `count`.
 */
const PAUSE_LUA = (p: number, c: number, n: number, ms: string, idle: string) => `
local ms = tonumber(${ms})
local left = redis.call('PTTL', KEYS[${p}])
count = tonumber(redis.call('GET', KEYS[${n}]) or '0')
if left < ms then
  redis.call('SET', KEYS[${p}], '1', 'PX', ms)
  redis.call('DEL', KEYS[${c}])
  if left <= 0 then count = redis.call('INCR', KEYS[${n}]) end
  redis.call('PEXPIRE', KEYS[${n}], ${idle})
end`;

/** Outcomes of `plugboardBudgetAcquire`: the first element of its reply. */
export const ACQUIRED = { go: 0, paused: 1, probing: 2, busy: 3, window: 4 } as const;

/**
 * Lets up to n requests go now, taking at once everything each holds.
 *
 * KEYS: pause, confirmed, probe, window, running, concurrency.
 * ARGV: probe TTL, limit (0: no window), period, hold, declared concurrency
 * (0: none), 1 to store the declared concurrency as the budget's, idle TTL,
 * lease (all ms), then the n requests' tokens.
 *
 * Replies {go, 1 when the first is the probe, how many go (the first ones), 1
 * when they hold running slots}, {paused, ms left}, {probing, ms the probe's
 * claim has left}, {busy, 0} when the budget's concurrency is all running, or
 * {window, ms until the oldest place may leave}. Each request that goes holds a
 * window place scored as if its answer came `hold` from now
 * (`plugboardBudgetFinish` scores the real answer) and, when the budget has a
 * concurrency, a running slot until its lease ends (`plugboardBudgetWriting`
 * starts it again when the request is written), so that a process that died
 * mid-request is forgotten; only one goes when it is the probe.
 *
 * The variant for a budget with no declared rate (`learning`) also reads
 * KEYS learn and pauses (`redis-learn-scripts.ts`): the window it learned
 * stands for the declared one, and while it knows none, requests go one at a
 * time (or as many as the provider's latest `X-RateLimit-Remaining` left room
 * for); every request holds a running slot and a window place. Its `go` reply
 * adds the pause count, and the requests sent and running before these.
 */
const acquire = (learning: boolean) => `
if ARGV[6] == '1' then redis.call('SET', KEYS[6], ARGV[5], 'PX', ARGV[7]) end
local paused = redis.call('PTTL', KEYS[1])
if paused > 0 then return {${ACQUIRED.paused}, paused} end
local go = #ARGV - 8
local probe = 0
if redis.call('EXISTS', KEYS[2]) == 0 then
  local held = redis.call('PTTL', KEYS[3])
  if held ~= -2 then return {${ACQUIRED.probing}, held} end
  probe = 1
  go = 1
end
${now('floor')}
${EXTEND}
local max = tonumber(redis.call('GET', KEYS[6]) or ARGV[5])
local slots = max > 0
local limit = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
${learning ? learnAcquire(ACQUIRED.busy) : ''}
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
  go = math.min(go, max - redis.call('ZCARD', KEYS[5]))
  if go <= 0 then return {${ACQUIRED.busy}, 0} end
end
if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - period)
  go = math.min(go, limit - redis.call('ZCARD', KEYS[4]))
  if go <= 0 then
    local oldest = tonumber(redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')[2])
    -- Every place is held by a request still running: its answer frees it, so ask again soon. A place
    -- answered within this millisecond scores up to one above now (its time rounded up): not running.
    if oldest > now + 1 then return {${ACQUIRED.window}, math.min(period, 10), limit, period} end
    return {${ACQUIRED.window}, math.max(1, oldest + period - now), limit, period}
  end
end
if probe == 1 then redis.call('SET', KEYS[3], ARGV[9], 'PX', ARGV[1]) end
local hold = tonumber(ARGV[4])
local lease = tonumber(ARGV[8])
local places = ${learning ? 'true' : 'limit > 0'}
for index = 9, 8 + go do
  if slots then redis.call('ZADD', KEYS[5], now + lease, ARGV[index]) end
  if places then redis.call('ZADD', KEYS[4], now + hold, ARGV[index]) end
end
if slots then extend(KEYS[5], lease + 1000) end
${learning ? 'extend(KEYS[4], math.max(hold + period + 1000, tonumber(ARGV[7])))' : 'if limit > 0 then extend(KEYS[4], hold + period + 1000) end'}
if redis.call('EXISTS', KEYS[6]) == 1 then redis.call('PEXPIRE', KEYS[6], ARGV[7]) end
${learning ? LEARN_ADMITTED : ''}
return {${ACQUIRED.go}, probe, go, slots and 1 or 0${learning ? ', epoch, sent, running' : ''}}
`;

/** How a request that went ended: the second argument of `plugboardBudgetFinish`. */
export const FINISHED = { confirm: 'confirm', pause: 'pause', answered: 'answered', unsent: 'unsent' } as const;
export type Finished = (typeof FINISHED)[keyof typeof FINISHED];

/**
 * A request that went has ended. KEYS: window, running, probe, pause,
 * confirmed, pauses. ARGV: token, how it ended (`FINISHED`), pause, idle TTL,
 * time since its answer came (all ms). It gives back its running slot and,
 * when it holds it, the probe; its window place leaves one period after its
 * answer (now less the time since, rounded up: never before a period after
 * the answer), or at once when it was never sent. Its answer confirms
 * the budget open or pauses it. Replies the number of pauses so far.
 *
 * The variant for a budget with no declared rate (`learning`) also reads KEY
 * learn and ARGV the request's pause count, place among the requests sent and
 * requests running beside it when it went, and what its answer teaches
 * (`redis-learn-scripts.ts`): it learns or forgets the window before the
 * answer's pause counts.
 */
const finish = (learning: boolean) => `
redis.call('ZREM', KEYS[2], ARGV[1])
local count = tonumber(redis.call('GET', KEYS[6]) or '0')
if ARGV[2] == '${FINISHED.unsent}' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  ${now('ceil')}
  ${learning ? learnFinish(FINISHED) : "redis.call('ZADD', KEYS[1], 'XX', now - tonumber(ARGV[5]), ARGV[1])"}
end
if ARGV[2] == '${FINISHED.pause}' then
  ${PAUSE_LUA(4, 5, 6, 'ARGV[3]', 'ARGV[4]')}
elseif ARGV[2] == '${FINISHED.confirm}' then
  redis.call('SET', KEYS[5], '1', 'PX', ARGV[4])
end
if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return count
`;

/**
 * A request that went is being written now. KEYS: running. ARGV: token, lease
 * (ms). Its running slot's lease starts again from the server's clock now: it
 * is counted from the writing, however late that came after the slot was
 * taken. A slot already forgotten is not taken again. Replies 1 when the slot
 * was still held.
 */
const WRITING = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
${now('ceil')}
${EXTEND}
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], 'XX', now + lease, ARGV[1])
extend(KEYS[1], lease + 1000)
return 1
`;

/** A pause. KEYS: pause, confirmed, pauses. ARGV: ms, idle TTL. Replies the number of pauses so far. */
const PAUSE = `
local count
${PAUSE_LUA(1, 2, 3, 'ARGV[1]', 'ARGV[2]')}
return count
`;

/** Renews the probe's claim while its holder still has it. KEYS: probe. ARGV: token, TTL (ms). */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

const SCRIPTS = {
  plugboardBudgetAcquire: { numberOfKeys: 6, lua: acquire(false) },
  plugboardBudgetAcquireLearning: { numberOfKeys: 8, lua: acquire(true) },
  plugboardBudgetFinish: { numberOfKeys: 6, lua: finish(false) },
  plugboardBudgetFinishLearning: { numberOfKeys: 7, lua: finish(true) },
  plugboardBudgetWriting: { numberOfKeys: 1, lua: WRITING },
  plugboardBudgetPause: { numberOfKeys: 3, lua: PAUSE },
  plugboardBudgetRenew: { numberOfKeys: 1, lua: RENEW },
} as const;

type Command = (...keysThenArgs: (string | number)[]) => Promise<unknown>;

/** A client with the budget's scripts as commands (keys first, then arguments). */
export type BudgetClient = IORedisClient & Record<keyof typeof SCRIPTS, Command>;

/** Registers the budget's scripts on `client` (its own commands, `plugboardBudget*`). */
export function defineBudgetCommands(client: IORedisClient): BudgetClient {
  for (const [name, definition] of Object.entries(SCRIPTS)) client.defineCommand(name, definition);
  return client as BudgetClient;
}
