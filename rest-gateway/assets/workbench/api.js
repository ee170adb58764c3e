// The REST client of the workbench: the key, the envelope, the balance.
//
// The key lives in sessionStorage only (this tab; gone when it closes), is
// sent as `Authorization: Bearer`, and never goes into a URL or a cookie.

const KEY_ITEM = 'mediaops.key';

export const session = {
  key: () => sessionStorage.getItem(KEY_ITEM),
  signIn: (key) => sessionStorage.setItem(KEY_ITEM, key),
  signOut: () => {
    sessionStorage.removeItem(KEY_ITEM);
    document.dispatchEvent(new CustomEvent('mediaops:signed-out'));
  },
};

/**
 * Calls `method path` and answers `{status, envelope}`: the spec 2.1
 * envelope `{success, requestId, data, error}` as the server sent it, or
 * one made here for a network failure (`status` 0, code `network_error`).
 * `query`: object of query parameters (arrays repeat the name); `body`:
 * JSON-encoded when given. A 401 signs the tab out.
 */
export async function request(method, path, { query, body, key = session.key() } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(one));
  }
  const headers = { Accept: 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    return { status: 0, envelope: failure('network_error', `无法连接服务：${error.message}`) };
  }
  let envelope;
  try {
    envelope = await response.json();
  } catch {
    envelope = failure('bad_response', `服务返回了非 JSON 内容（HTTP ${response.status}）`);
  }
  if (response.status === 401 && key === session.key()) session.signOut();
  return { status: response.status, envelope };
}

function failure(code, message) {
  return { success: false, requestId: '', data: null, error: { code, message } };
}

/** Reads `GET /api/account/balance` and announces it (`mediaops:balance`). */
export async function refreshBalance() {
  const { envelope } = await request('GET', '/api/account/balance');
  if (envelope.success) {
    document.dispatchEvent(new CustomEvent('mediaops:balance', { detail: envelope.data }));
    return envelope.data;
  }
  return null;
}
