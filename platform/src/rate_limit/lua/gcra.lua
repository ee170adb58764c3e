-- GCRA over two cells at once (issue 16 item 4; docs/rate-limits.md).
-- KEYS[1] the account's own limit (hash: count, period, burst; count 0 = off),
-- KEYS[2] the account's cell, KEYS[3] the key's cell: each
-- '<TAT>:<T>:<burst>', a theoretical arrival time in whole microseconds and
-- the limit it was taken under (a cell of another limit counts as full, as
-- a changed limit starts afresh), expiring when the cell is full.
-- ARGV: now in microseconds ('' = this Redis's TIME), then the default
-- limit's count (0 = off), period (seconds) and burst.
-- T = period / count (whole microseconds, at least 1), tau = burst * T.
-- A call passes when max(TAT, now) + T - now <= tau in both cells; it then
-- sets each cell's TAT to max(TAT, now) + T. A refused call changes nothing.
-- Returns {allowed (1, 0; -1 = no limit), calls left at once, wait in
-- microseconds until a call passes (0 when allowed), count, period, burst}.
local now
if ARGV[1] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(ARGV[1])
end
local own = redis.call('HMGET', KEYS[1], 'count', 'period', 'burst')
local count, period, burst
if own[1] then
  count, period, burst = tonumber(own[1]), tonumber(own[2]), tonumber(own[3])
else
  count, period, burst = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
end
if count <= 0 then
  return {-1, 0, 0, 0, 0, 0}
end
local t = math.max(1, math.floor(period * 1000000 / count))
local tau = burst * t
local debts = {}
local debt = 0
for i = 2, 3 do
  local tat = 0
  local cell = redis.call('GET', KEYS[i])
  if cell then
    local at, cell_t, cell_burst = string.match(cell, '^(%d+):(%d+):(%d+)$')
    if at and tonumber(cell_t) == t and tonumber(cell_burst) == burst then
      tat = tonumber(at)
    end
  end
  debts[i] = math.max(tat - now, 0)
  debt = math.max(debt, debts[i])
end
if debt + t > tau then
  return {0, 0, debt + t - tau, count, period, burst}
end
for i = 2, 3 do
  local after = debts[i] + t
  local cell = string.format('%d:%d:%d', now + after, t, burst)
  redis.call('SET', KEYS[i], cell, 'PX', math.ceil(after / 1000))
end
return {1, math.floor((tau - debt - t) / t), 0, count, period, burst}
