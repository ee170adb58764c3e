-- Reserve ARGV[1] points for reservation ARGV[2] if the balance covers them.
-- KEYS[1] balance, KEYS[2] reservations hash (id -> points),
-- KEYS[3] reservation expiry zset (id -> ms), KEYS[4] cancelled
-- reservations zset (id -> ms; lua/cancel.lua).
-- ARGV: points, id, now_ms, expires_ms.
-- Expired reservations of the account are released first.
-- Returns {1, balance_after} when held, {0, balance} when insufficient,
-- {2, balance} when the reservation was cancelled before it arrived (a
-- reserve run late, whose caller gave up on it): nothing is held.
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
if redis.call('ZSCORE', KEYS[4], ARGV[2]) then
  return {2, tonumber(redis.call('GET', KEYS[1]) or '0')}
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(expired) do
  local held = redis.call('HGET', KEYS[2], id)
  if held then
    redis.call('INCRBY', KEYS[1], held)
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[3], id)
end
local price = tonumber(ARGV[1])
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
if balance < price then
  return {0, balance}
end
balance = redis.call('DECRBY', KEYS[1], price)
redis.call('HSET', KEYS[2], ARGV[2], price)
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
return {1, balance}
