// An account's page (`#/account/<platform>/<id>`, reached from any result
// row that names an account): its counters over time, drawn from the
// answer of `history.account-history` with that operation's own output
// descriptor (its `chart` section and the rest).

import { h, replace } from 'wb/dom.js';
import { renderResult } from 'wb/result.js';
import { invoke } from 'wb/invoke.js';
import { detail, errorHeadline } from 'wb/messages.js';

const OPERATION = 'history.account-history';
const WINDOWS = [[7, '近 7 天'], [30, '近 30 天'], [90, '近 90 天'], [365, '近一年']];

export async function accountPage(main, { byKey }, platform, id) {
  const op = byKey.get(OPERATION);
  const heading = h('h1', {}, '账号走势');
  const output = h('div', { class: 'output', 'aria-live': 'polite' });
  const choose = h('select', { id: 'account-days', 'aria-label': '时间范围' },
    WINDOWS.map(([days, label]) => h('option', { value: String(days), selected: days === 30 }, label)));
  replace(main,
    h('nav', { class: 'crumbs', 'aria-label': '位置' }, h('a', { href: '#/' }, '首页'), ' / 账号走势'),
    heading,
    h('p', { class: 'op-meta' }, h('code', {}, platform), ' · ', h('code', {}, id),
      op ? [' · ', h('a', { href: `#/op/${OPERATION}` }, op.title)] : null),
    h('p', {}, h('label', { for: 'account-days' }, '时间范围 '), choose),
    output);
  if (!op || !op.route) {
    replace(output, h('p', { class: 'notice' }, '此服务没有账号走势操作。'));
    return;
  }
  const load = async () => {
    replace(output, h('div', { class: 'progress', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), '正在读取…'));
    const { status, envelope } = await invoke(op, { platform, accountId: id, days: Number(choose.value) });
    if (!envelope.success) {
      const error = envelope.error || { code: 'unknown', message: '' };
      replace(output, h('div', { class: 'error-box', role: 'alert' },
        h('strong', {}, errorHeadline(status, error)), h('p', { class: 'detail' }, detail(error))));
      return;
    }
    if (envelope.data.name) heading.textContent = `${envelope.data.name} · 账号走势`;
    document.title = `${heading.textContent} · mediaops`;
    replace(output, renderResult(op.outputUiSchema, envelope.data));
  };
  choose.addEventListener('change', load);
  await load();
}
