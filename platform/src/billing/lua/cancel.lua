-- Release reservation ARGV[1] whose reserve got no answer (it may still
-- run: a frozen Redis resumes with it in its socket), and make sure a late
-- reserve of it holds nothing.
-- KEYS[1] balance, KEYS[2] reservations hash, KEYS[3] reservation expiry
-- zset, KEYS[4] cancelled reservations zset (id -> ms it is kept until).
-- ARGV: id, keep-until ms.
-- Returns 1 when it released a reservation, 0 when it left a tombstone.
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held then
  redis.call('INCRBY', KEYS[1], held)
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 1
end
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
return 0
