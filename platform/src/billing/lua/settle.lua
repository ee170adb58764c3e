-- Settle reservation ARGV[1]: ARGV[2] = '1' returns the points (release),
-- '0' keeps them (commit).
-- KEYS[1] balance, KEYS[2] reservations hash, KEYS[3] reservation expiry zset.
-- Returns 1 when the reservation existed, 0 when it was already settled.
local held = redis.call('HGET', KEYS[2], ARGV[1])
if not held then
  return 0
end
if ARGV[2] == '1' then
  redis.call('INCRBY', KEYS[1], held)
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
