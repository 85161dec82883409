import { LEARN_MAX } from './budget-rules.js';

/**
 * The Lua that lets a budget with no declared rate, shared through Redis, learn the
 * provider's window as the in-process budget does (`local-budget.ts`, rules in
 * `budget-rules.ts`), once for every process. `redis-scripts.ts` puts these parts into the
 * learning variants of its acquire and finish scripts; the declared budgets' scripts do
 * without them.
 *
 * KEYS learn (a hash) holds: `limit` and `period` (ms), the window learned, absent while none
 * is known; `start` (Redis server ms) when the current run's probe went and `count`, the
 * requests the provider admitted since (at most `LEARN_MAX`), whose answers keep their window
 * places meanwhile; `sent`, the requests sent so far; `room`, how many may have been sent side
 * by side (`roomUpTo`) and `epoch`, the pause count it was read under (a pause since voids it).
 */

/**
 * In acquire, once `now`, `go`, `limit` and `period` are set (KEYS: 5 running, 7 learn,
 * 8 pauses). Every request holds a running slot (a process that dies mid-request is
 * forgotten when its lease ends). A window learned stands for the declared one; while none is
 * known, one request goes while none runs, more only while `sent` is below `room`.
 */
export const learnAcquire = (busy: number) => `
slots = true
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
local running = redis.call('ZCARD', KEYS[5])
local epoch = tonumber(redis.call('GET', KEYS[8]) or '0')
local learned = redis.call('HMGET', KEYS[7], 'limit', 'period', 'sent', 'room', 'epoch')
local sent = tonumber(learned[3] or '0')
if learned[1] then
  limit = tonumber(learned[1])
  period = tonumber(learned[2])
else
  local room = 0
  if tonumber(learned[5] or '-1') == epoch then room = tonumber(learned[4]) end
  local allowed = room - sent
  if running == 0 and allowed < 1 then allowed = 1 end
  go = math.min(go, allowed)
  if go <= 0 then return {${busy}, 0} end
end`;

/** In acquire, once `go` requests go: counts them sent; a probe starts a new run (and, with no window known, drops the answers before it). */
export const LEARN_ADMITTED = `
redis.call('HSET', KEYS[7], 'sent', sent + go)
if probe == 1 then
  redis.call('HSET', KEYS[7], 'start', now, 'count', 0)
  if not learned[1] then redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now) end
end
redis.call('PEXPIRE', KEYS[7], ARGV[7])`;

/**
 * In finish, for a request that was sent, once `now` and `count` (pauses so far) are set.
 * ARGV: 6 the pause count when it went, 7 its place among the requests sent, 8 requests
 * running beside it then, 9 admitted (1/0), 10 a 429 (1/0), 11 its pause teaches the window
 * (1/0), 12 `X-RateLimit-Remaining` (-1: none). Only an answer to a request sent since the
 * latest pause counts, as in `local-budget.ts`.
 */
export const learnFinish = (names: { pause: string; answered: string }) => `
local at = now - tonumber(ARGV[5])
local current = tonumber(ARGV[6]) == count and ARGV[2] ~= '${names.answered}'
local learned = redis.call('HMGET', KEYS[7], 'limit', 'count', 'start', 'room', 'epoch')
if learned[1] then
  redis.call('ZADD', KEYS[1], 'XX', at, ARGV[1])
  -- A 429 under the learned window: it was wrong, for every process.
  if current and ARGV[10] == '1' then
    redis.call('HDEL', KEYS[7], 'limit', 'period')
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  end
else
  local answers = tonumber(learned[2] or '0')
  if current and ARGV[9] == '1' and answers < ${LEARN_MAX} then
    redis.call('ZADD', KEYS[1], 'XX', at, ARGV[1])
    answers = redis.call('HINCRBY', KEYS[7], 'count', 1)
  else
    redis.call('ZREM', KEYS[1], ARGV[1])
  end
  local remaining = tonumber(ARGV[12])
  if current and remaining >= 0 then
    local room = 0
    if tonumber(learned[5] or '-1') == count then room = tonumber(learned[4]) end
    redis.call('HSET', KEYS[7], 'room', math.max(room, tonumber(ARGV[7]) + remaining - tonumber(ARGV[8])), 'epoch', count)
  end
  -- The rule of learnedWindow (budget-rules.ts): a run no longer than the pause shows the window.
  local pause = tonumber(ARGV[3])
  local start = tonumber(learned[3] or '-1')
  if current and ARGV[2] == '${names.pause}' and ARGV[11] == '1' and start >= 0 and answers > 0
    and answers < ${LEARN_MAX} and at - start <= pause then
    redis.call('HSET', KEYS[7], 'limit', answers, 'period', at + pause - start)
  end
  redis.call('PEXPIRE', KEYS[7], ARGV[4])
end`;
