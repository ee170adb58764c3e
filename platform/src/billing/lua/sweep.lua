-- Release the account's reservations that expired before ARGV[1] (ms).
-- KEYS[1] balance, KEYS[2] reservations hash, KEYS[3] reservation expiry zset.
-- Returns the number released.
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
local released = 0
for _, id in ipairs(expired) do
  local held = redis.call('HGET', KEYS[2], id)
  if held then
    redis.call('INCRBY', KEYS[1], held)
    redis.call('HDEL', KEYS[2], id)
    released = released + 1
  end
  redis.call('ZREM', KEYS[3], id)
end
return released
