// One generic page per operation, rendered only from the catalog entry:
// the form from `inputUiSchema`, the result from `outputUiSchema`.

import { h, replace, copyText } from 'wb/dom.js';
import { availability, priceText } from 'wb/catalog.js';
import { buildForm } from 'wb/form.js';
import { renderResult } from 'wb/result.js';
import { invoke, curlCommand, grpcurlCommand } from 'wb/invoke.js';
import { detail, errorHeadline, fieldText } from 'wb/messages.js';

export function operationPage(main, op, { balance }) {
  const { callable, note } = availability(op);
  const label = `${(op.taskUi && op.taskUi.actionLabel) || '调用'} · ${priceText(op)}`;
  const output = h('div', { class: 'output', 'aria-live': 'polite' });
  const form = buildForm(op.inputUiSchema, { submitLabel: label, disabled: !callable, onSubmit: () => submit() });
  const copied = h('span', { class: 'copied', role: 'status' });
  const copy = (make) => async () => {
    const { object } = form.values();
    copied.textContent = (await copyText(make(op.route, object))) ? '已复制' : '复制失败';
    setTimeout(() => { copied.textContent = ''; }, 2000);
  };
  replace(main, 
    h('nav', { class: 'crumbs', 'aria-label': '位置' }, h('a', { href: '#/' }, '首页'), ' / ', op.title),
    h('h1', {}, op.title),
    h('p', { class: 'summary' }, op.heroDescription || op.summary),
    h('p', { class: 'op-meta' },
      h('span', { class: 'price' }, priceText(op)), ' · ', h('code', {}, op.operationKey),
      op.route ? [' · ', h('code', {}, `${op.route.method} ${op.route.path}`)] : null),
    sourcesLine(op.dataSources),
    callable ? null : h('p', { class: 'notice' }, `此操作当前不可用：${note}`),
    form.node,
    op.route ? h('div', { class: 'copy-row' },
      h('button', { type: 'button', onclick: copy(curlCommand) }, '复制为 curl'),
      h('button', { type: 'button', onclick: copy(grpcurlCommand) }, '复制为 grpcurl'),
      copied) : null,
    output,
  );

  async function submit() {
    const { object, errors } = form.values();
    if (errors.length) return form.showErrors(errors);
    form.clearErrors();
    form.submit.disabled = true;
    const progress = h('div', { class: 'progress', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), '正在调用…');
    replace(output, progress);
    const answer = await invoke(op, object, {
      onProgress: ({ taskId, status, seconds }) => replace(progress, h('span', { class: 'spinner', 'aria-hidden': 'true' }),
        `任务 ${taskId} ${status === 'queued' ? '排队中' : '运行中'}，已等待 ${seconds} 秒…`),
    });
    form.submit.disabled = false;
    showAnswer(answer);
  }

  function showAnswer({ status, envelope }) {
    if (!envelope.success) {
      const error = envelope.error || { code: 'unknown', message: '' };
      if (error.field) form.showErrors([{ path: error.field, message: fieldText(error) }]);
      const lines = [h('strong', {}, `调用失败：${errorHeadline(status, error)}`), h('p', { class: 'detail' }, detail(error))];
      if (error.code === 'insufficient_points') {
        lines.push(h('p', {}, `本次需要 ${op.unitPrice} 点，当前余额 ${balance() ?? '未知'} 点。请联系管理员充值。`));
      }
      if (error.upstream) lines.push(h('p', { class: 'upstream' }, `上游：${error.upstream.message || ''}`));
      lines.push(h('p', { class: 'request-id' }, `请求 ID：${envelope.requestId || '—'}`));
      replace(output, h('div', { class: 'error-box', role: 'alert' }, lines));
      return;
    }
    const raw = h('pre', { class: 'raw', hidden: true }, JSON.stringify(envelope, null, 2));
    const toggle = h('button', { type: 'button', 'aria-expanded': 'false' }, '原始 JSON');
    toggle.addEventListener('click', () => {
      raw.hidden = !raw.hidden;
      toggle.setAttribute('aria-expanded', String(!raw.hidden));
    });
    replace(output,
      h('div', { class: 'result-head' }, h('h2', {}, '调用结果'), toggle),
      (envelope.warnings || []).map((w) => h('p', { class: 'warning' }, w)),
      renderResult(op.outputUiSchema, envelope.data, { platform: op.platform }),
      raw);
  }
}

// The 数据来源 line: the chain the core built for the operation and the
// vendor packs that map it (the catalog's `dataSources`, as `mediaops
// sources` prints them).
function sourcesLine(sources) {
  if (!sources) return null;
  const step = (word) => word === 'store' ? '内容库'
    : word === 'store:fresh' ? '内容库（记录够新时）'
    : word.startsWith('upstream:') ? `数据厂商 ${word.slice('upstream:'.length)}` : word;
  const chain = sources.chain || [];
  const packs = sources.packs || [];
  return h('p', { class: 'op-sources', 'data-chain': chain.join(',') },
    '数据来源：', chain.length ? chain.map(step).join(' → ') : '未接入',
    packs.length ? `（映射此操作的厂商包：${packs.join('、')}）` : '');
}
