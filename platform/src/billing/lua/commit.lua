-- Commit the reservations of an account's delivered calls and log every
-- call, in one step per call, so the account's usage log says what each
-- commit did even when Redis runs it late (a frozen Redis resuming with it
-- in its socket, after the reservation was released again: lua/cancel.lua).
-- One run settles every call of the account queued since the last run
-- (billing/redis/usage_queue.rs).
-- KEYS[1] balance, KEYS[2] reservations hash, KEYS[3] reservation expiry
-- zset, KEYS[4] the account's usage log, KEYS[5] its usage counts.
-- ARGV[1] the log's limit, then five per call: the reservation id ('' for
-- a call that held nothing: only its usage is logged), the usage line when
-- charged (or the only line), the line when the reservation was gone
-- (0 points), the operation key, '1' to count the call.
-- Returns one number per call: 1 when it committed, 0 when not (the
-- reservation was already gone, or there was none).
local committed = {}
for i = 2, #ARGV, 5 do
  local id = ARGV[i]
  local line = ARGV[i + 1]
  local done = 0
  if id ~= '' then
    if redis.call('HDEL', KEYS[2], id) == 1 then
      redis.call('ZREM', KEYS[3], id)
      done = 1
    else
      line = ARGV[i + 2]
    end
  end
  redis.call('LPUSH', KEYS[4], line)
  if ARGV[i + 4] == '1' then
    redis.call('HINCRBY', KEYS[5], ARGV[i + 3], 1)
  end
  committed[#committed + 1] = done
end
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[1]) - 1)
return committed
