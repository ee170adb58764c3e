-- Commit reservation ARGV[1] of a delivered call and log it, in one step,
-- so the account's usage log says what the commit did even when Redis runs
-- it late (a frozen Redis resuming with it in its socket, after the
-- reservation was released again: lua/cancel.lua).
-- KEYS[1] balance, KEYS[2] reservations hash, KEYS[3] reservation expiry
-- zset, KEYS[4] the account's usage log, KEYS[5] its usage counts.
-- ARGV: id, the usage line when charged, the line when the reservation
-- was gone (0 points), operation key, '1' to count the call, log limit.
-- Returns 1 when it committed, 0 when the reservation was already gone.
local held = redis.call('HGET', KEYS[2], ARGV[1])
local line = ARGV[3]
if held then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  line = ARGV[2]
end
redis.call('LPUSH', KEYS[4], line)
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[6]) - 1)
if ARGV[5] == '1' then
  redis.call('HINCRBY', KEYS[5], ARGV[4], 1)
end
if held then
  return 1
end
return 0
