// What the workbench says about a failure, in Chinese. The service's
// error codes are stable (docs/errors.md); its messages are English and
// detailed, so a message is shown as a detail under the Chinese one,
// never on its own.

const CODES = {
  unauthenticated: 'API Key 无效、已停用或格式不对',
  forbidden: '没有权限执行此操作',
  invalid_input: '输入有误',
  not_found: '要找的内容不存在',
  conflict: '与另一请求冲突（同一个幂等键正在使用或已用于其他请求）',
  insufficient_points: '点数不足',
  rate_limited: '调用太频繁，请稍后再试',
  request_timeout: '请求超时',
  payload_too_large: '内容太大',
  unsupported_media_type: '请求格式不受支持',
  method_not_allowed: '不支持此请求方式',
  upstream_unavailable: '数据源暂时不可用，本次未扣点',
  maintenance: '此操作正在维护，本次未扣点',
  not_implemented: '此操作尚未实现',
  not_configured: '服务尚未配置此功能所需的上游',
  billing_unavailable: '计费服务暂时不可用，本次未扣点',
  store_unavailable: '存储暂时不可用，本次未扣点',
  unavailable: '服务暂时不可用',
  internal: '服务内部错误，请把请求 ID 告诉管理员',
  network_error: '无法连接服务',
  bad_response: '服务返回了无法识别的内容',
  task_failed: '任务失败',
};

/** The Chinese sentence of an error `code` (the code itself when unknown). */
export function codeText(code) {
  return CODES[code] || `调用失败（${code}）`;
}

/** `codeText` plus the HTTP status and the code, for an error headline. */
export function errorHeadline(status, error) {
  return `${codeText(error.code)}（HTTP ${status} · ${error.code}）`;
}

/** The service's own message as a detail line: `服务说明：…`. */
export function detail(error) {
  return error && error.message ? `服务说明：${error.message}` : '';
}

/**
 * A field's error in Chinese: `必填` for a missing value, else what kind of
 * problem it is, with the service's message in parentheses.
 */
export function fieldText(error) {
  const message = (error && error.message) || '';
  if (/ is required\b/.test(message)) return '此项必填';
  return message ? `${codeText(error.code)}（${message}）` : codeText(error.code);
}
