// Sign-in: paste an API key; it is checked with the balance call and kept
// in this tab's sessionStorage only.

import { h, replace, richText } from 'wb/dom.js';
import { request, session } from 'wb/api.js';
import { codeText } from 'wb/messages.js';

export function signInPage(main, { onSignedIn }) {
  const input = h('input', { id: 'key', type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: 'mk_…', 'aria-describedby': 'key-help key-error', required: true });
  const error = h('p', { class: 'field-error', id: 'key-error', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary' }, '登录');
  const form = h('form', { class: 'signin', novalidate: true },
    h('h1', {}, '登录工作台'),
    h('div', { class: 'field' },
      h('label', { for: 'key' }, 'API Key'),
      input,
      h('p', { class: 'help', id: 'key-help' }, richText('粘贴服务首次启动时打印的 Key，或管理员用 `mediaops keys create` 发给你的 Key。Key 只保存在当前标签页，关闭即清除。')),
      error),
    h('div', { class: 'actions' }, button),
    h('p', { class: 'help' }, '开发者：', h('a', { href: '/docs' }, 'API 文档'), ' · ', h('a', { href: '/openapi.json' }, 'OpenAPI'), ' · MCP 端点 ', h('code', {}, '/mcp')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      error.textContent = '请填写 API Key';
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    button.disabled = true;
    button.textContent = '正在验证…';
    const { envelope } = await request('GET', '/api/account/balance', { key });
    button.disabled = false;
    button.textContent = '登录';
    if (!envelope.success) {
      error.textContent = `登录失败：${codeText(envelope.error.code)}（${envelope.error.code}）`;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    session.signIn(key);
    onSignedIn(envelope.data);
  });
  replace(main, form);
  input.focus();
}
