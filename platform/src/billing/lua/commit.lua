-- Commit the reservations of an account's delivered calls and log every
-- call, in one step per call, so the account's usage log says what each
-- commit did even when Redis runs it late (a frozen Redis resuming with it
-- in its socket, after the reservation was released again: lua/cancel.lua).
-- One run settles every call of the account queued since the last run
-- (billing/redis/usage_queue.rs).
-- KEYS[1] balance, KEYS[2] reservations hash, KEYS[3] reservation expiry
-- zset, KEYS[4] the account's usage log, KEYS[5] its usage counts.
-- ARGV[1] the log's limit, then four per call: the reservation id ('' for
-- a call that held nothing: only its usage is logged), the usage line when
-- charged (or the only line), the operation key, '1' to count the call.
-- When the reservation was gone, the line is logged with 0 points: its
-- `,"points":N,"outcome":` member set to 0 (a JSON object serialized by
-- serde in field order; inside a string every quote is escaped, so only
-- the member itself can match).
-- Returns one number per call: 1 when it committed, 0 when not (the
-- reservation was already gone, or there was none, or an earlier call of
-- the same run committed it).
-- Each call is decided on its own, in order, but the writes are made once
-- for the whole run (one HMGET, HDEL, ZREM and LPUSH, one HINCRBY per
-- operation): Redis's work per call is Lua's, not a command's.
local ids = {}
for i = 2, #ARGV, 4 do
  if ARGV[i] ~= '' then
    ids[#ids + 1] = ARGV[i]
  end
end
local held = {}
if #ids > 0 then
  local points = redis.call('HMGET', KEYS[2], unpack(ids))
  for j, id in ipairs(ids) do
    if points[j] then
      held[id] = true
    end
  end
end
local committed, done_ids, lines, counts = {}, {}, {}, {}
for i = 2, #ARGV, 4 do
  local id = ARGV[i]
  local line = ARGV[i + 1]
  local done = 0
  if id ~= '' then
    if held[id] then
      held[id] = nil
      done_ids[#done_ids + 1] = id
      done = 1
    else
      line = (string.gsub(line, ',"points":%-?%d+,"outcome":', ',"points":0,"outcome":', 1))
    end
  end
  lines[#lines + 1] = line
  if ARGV[i + 3] == '1' then
    counts[ARGV[i + 2]] = (counts[ARGV[i + 2]] or 0) + 1
  end
  committed[#committed + 1] = done
end
if #done_ids > 0 then
  redis.call('HDEL', KEYS[2], unpack(done_ids))
  redis.call('ZREM', KEYS[3], unpack(done_ids))
end
if #lines > 0 then
  redis.call('LPUSH', KEYS[4], unpack(lines))
end
for operation, n in pairs(counts) do
  redis.call('HINCRBY', KEYS[5], operation, n)
end
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[1]) - 1)
return committed
