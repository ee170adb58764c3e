-- Reserve points for the reservations of one account, in the order given,
-- each if the balance covers it: one run per account settles every reserve
-- of the account queued since the last run (billing/redis/reserve_queue.rs).
-- KEYS[1] balance, KEYS[2] reservations hash (id -> points),
-- KEYS[3] reservation expiry zset (id -> ms), KEYS[4] cancelled
-- reservations zset (id -> ms; lua/cancel.lua).
-- ARGV[1] now_ms, then three per reservation: points, id, expires_ms.
-- Expired reservations of the account are released first.
-- Returns two numbers per reservation: 1 and the balance after it when
-- held, 0 and the balance when insufficient, 2 and the balance when the
-- reservation was cancelled before it arrived (a reserve run late, whose
-- caller gave up on it): nothing is held.
-- Each reserve is decided on its own, in order, against the balance the
-- ones before it left; the writes are made once for the whole run (one
-- DECRBY, HSET and ZADD): Redis's work per reserve is Lua's, not a command's.
-- The balances answered are Lua numbers (exact up to 2^53 points).
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(expired) do
  local held = redis.call('HGET', KEYS[2], id)
  if held then
    redis.call('INCRBY', KEYS[1], held)
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[3], id)
end
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
local any_cancelled = redis.call('ZCARD', KEYS[4]) > 0
local answers, held, expiries, taken = {}, {}, {}, 0
for i = 2, #ARGV, 3 do
  local price, id = tonumber(ARGV[i]), ARGV[i + 1]
  local status = 0
  if any_cancelled and redis.call('ZSCORE', KEYS[4], id) then
    status = 2
  elseif balance >= price then
    balance = balance - price
    taken = taken + price
    held[#held + 1] = id
    held[#held + 1] = price
    expiries[#expiries + 1] = ARGV[i + 2]
    expiries[#expiries + 1] = id
    status = 1
  end
  answers[#answers + 1] = status
  answers[#answers + 1] = balance
end
if #held > 0 then
  redis.call('DECRBY', KEYS[1], taken)
  redis.call('HSET', KEYS[2], unpack(held))
  redis.call('ZADD', KEYS[3], unpack(expiries))
end
return answers
