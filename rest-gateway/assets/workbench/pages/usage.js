// Usage: the account's recent calls and points (`GET /api/account/usage`).

import { h, replace } from 'wb/dom.js';
import { request } from 'wb/api.js';
import { detail, errorHeadline } from 'wb/messages.js';

export async function usagePage(main) {
  replace(main, h('h1', {}, '用量'), h('p', { class: 'progress', role: 'status' }, '正在读取…'));
  const { status, envelope } = await request('GET', '/api/account/usage', { query: { limit: 100 } });
  if (!envelope.success) {
    replace(main, h('h1', {}, '用量'), h('div', { class: 'error-box', role: 'alert' }, `读取失败：${errorHeadline(status, envelope.error)}。${detail(envelope.error)}`));
    return;
  }
  const records = envelope.data.records || [];
  const counts = Object.entries(envelope.data.usageCounts || {}).sort((a, b) => b[1] - a[1]);
  const spent = records.reduce((sum, r) => sum + (r.outcome === 'ok' ? Number(r.points) : 0), 0);
  replace(main, 
    h('h1', {}, '用量'),
    h('p', {}, `最近 ${records.length} 次调用，共扣 ${spent} 点（失败的调用不扣点）。`),
    records.length
      ? h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': '最近调用' },
        h('table', { class: 'usage' },
          h('thead', {}, h('tr', {}, ['时间', '操作', '点数', '结果', '请求 ID'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, records.map((r) => h('tr', { class: r.outcome === 'ok' ? '' : 'failed' },
            h('td', {}, new Date(r.at).toLocaleString('zh-CN', { timeZone: 'Asia/Shanghai' })),
            h('td', {}, h('code', {}, r.operationKey)),
            h('td', { class: 'num' }, String(r.points)),
            h('td', {}, r.outcome === 'ok' ? '成功' : r.outcome),
            h('td', {}, h('code', {}, r.requestId)))))))
      : h('p', { class: 'empty' }, '还没有调用记录。'),
    counts.length ? [h('h2', {}, '各操作成功次数'), h('dl', { class: 'fields' }, counts.map(([key, n]) => [h('dt', {}, h('code', {}, key)), h('dd', {}, String(n))]))] : null,
  );
}
