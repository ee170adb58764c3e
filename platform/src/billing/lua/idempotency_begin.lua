-- Start or look up an idempotent request.
-- KEYS[1] the record (hash: fingerprint, response).
-- ARGV: fingerprint, pending ttl ms.
-- Returns {'new'}, {'pending'}, or {'done', fingerprint, response}.
local state = redis.call('HMGET', KEYS[1], 'fingerprint', 'response')
if not state[1] then
  redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {'new'}
end
if not state[2] then
  return {'pending'}
end
return {'done', state[1], state[2]}
