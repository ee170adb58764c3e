// Calling an operation from a form's request object: the REST request of
// its route, the task polling of spec 4.14 / docs/tasks.md, and the same
// call as a curl or grpcurl command line.

import { request, refreshBalance } from 'wb/api.js';

/** Seconds between task polls: 2 s at first, then up to 5 s. */
const POLL_FIRST_MS = 2000;
const POLL_MAX_MS = 5000;

/**
 * The REST request for `object` (the whole request message, proto JSON
 * names): path parameters filled from it, the rest as query parameters for
 * GET, else as the JSON body (only `route.bodyField` when the route has one).
 */
export function restRequest(route, object) {
  const rest = { ...object };
  const path = route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(value === undefined ? '' : String(value));
  });
  if (route.method === 'GET' || route.method === 'DELETE') return { method: route.method, path, query: rest };
  const body = route.bodyField ? rest[route.bodyField] || {} : rest;
  return { method: route.method, path, body };
}

/** Whether an answer's data is a task still going on. */
function running(data, envelope) {
  const taskId = (data && data.taskId) || envelope.taskId;
  return Boolean(taskId) && data && (data.status === 'running' || data.status === 'queued') ? taskId : null;
}

/**
 * Calls `op` with `object`. `onProgress({taskId, status, seconds})` is
 * called while a task runs. Answers `{status, envelope}` where, for a task,
 * `envelope.data` is the finished task (a failed task becomes a failed
 * envelope with the task's error). The balance is refreshed afterwards.
 */
export async function invoke(op, object, { onProgress } = {}) {
  const rest = restRequest(op.route, object);
  let answer = await request(rest.method, rest.path, { query: rest.query, body: rest.body });
  const started = Date.now();
  let taskId = answer.envelope.success ? running(answer.envelope.data, answer.envelope) : null;
  let wait = POLL_FIRST_MS;
  while (taskId) {
    onProgress && onProgress({ taskId, status: answer.envelope.data.status, seconds: Math.round((Date.now() - started) / 1000) });
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait + 1000, POLL_MAX_MS);
    const polled = await request('GET', `/api/tasks/${encodeURIComponent(taskId)}`);
    if (!polled.envelope.success) {
      answer = polled;
      break;
    }
    const data = polled.envelope.data;
    if (data.status === 'failed') {
      answer = { status: polled.status, envelope: { ...polled.envelope, success: false, data: null, error: data.error || { code: 'task_failed', message: '任务失败' } } };
      break;
    }
    answer = polled;
    taskId = running(data, polled.envelope);
  }
  refreshBalance();
  return answer;
}

/** Single-quotes `text` for a POSIX shell. */
function shellQuote(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

/** The call as a curl command line; the key stays `$MEDIAOPS_KEY`. */
export function curlCommand(route, object) {
  const rest = restRequest(route, object);
  const url = new URL(rest.path, location.origin);
  for (const [name, value] of Object.entries(rest.query || {})) {
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(one));
  }
  const parts = ['curl', '-sS'];
  if (rest.method !== 'GET') parts.push('-X', rest.method);
  parts.push(shellQuote(url.href), '-H', '"Authorization: Bearer $MEDIAOPS_KEY"');
  if (rest.body !== undefined) parts.push('-H', shellQuote('Content-Type: application/json'), '-d', shellQuote(JSON.stringify(rest.body)));
  return parts.join(' ');
}

/** The call as a grpcurl command line against the core's default port. */
export function grpcurlCommand(route, object) {
  return ['grpcurl', '-plaintext', '-H', '"authorization: Bearer $MEDIAOPS_KEY"', '-d', shellQuote(JSON.stringify(object)),
    'localhost:50051', route.grpcMethod].join(' ');
}
