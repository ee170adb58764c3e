// Home: operation cards grouped by task family (spec 2.4 `taskUi`), ordered
// by `featuredRank`; a search box over skills (`GET /api/skills/search`,
// with its `matchReasons`) and data APIs (filtered here).

import { h, replace } from 'wb/dom.js';
import { request } from 'wb/api.js';
import { FAMILIES, availability, byFeaturedRank, priceText } from 'wb/catalog.js';

export function homePage(main, { operations }) {
  const box = h('input', { id: 'search', type: 'search', placeholder: '搜索技能与数据接口，例如：热点、公众号、封面', autocomplete: 'off' });
  const status = h('p', { class: 'search-status', role: 'status', 'aria-live': 'polite' });
  const groups = h('div', { class: 'groups' });
  replace(main, 
    h('h1', {}, '按任务开始'),
    h('div', { class: 'search' }, h('label', { for: 'search', class: 'offscreen' }, '搜索'), box, status),
    groups,
  );
  const showAll = () => {
    status.textContent = '';
    replace(groups, FAMILIES.map(([family, name]) => {
      const ops = operations.filter((op) => op.taskUi && op.taskUi.taskFamily === family).sort(byFeaturedRank);
      return ops.length ? group(name, ops) : null;
    }));
  };
  let pending = 0;
  const search = async () => {
    const q = box.value.trim();
    if (!q) return showAll();
    const mine = ++pending;
    const words = q.toLowerCase().split(/\s+/);
    const apis = operations.filter((op) => op.kind === 'api' && words.every((w) =>
      [op.title, op.summary, op.platform, op.operationKey, ...(op.tags || [])].join(' ').toLowerCase().includes(w)));
    const { envelope } = await request('GET', '/api/skills/search', { query: { q } });
    if (mine !== pending) return;
    const skills = envelope.success ? envelope.data.items : [];
    const reasons = new Map(skills.map((s) => [s.operationKey, s.matchReasons || []]));
    const skillOps = skills.map((s) => operations.find((op) => op.operationKey === s.operationKey)).filter(Boolean);
    status.textContent = `找到 ${skillOps.length} 个技能、${apis.length} 个数据接口`;
    replace(groups,
      skillOps.length ? group('技能', skillOps, reasons) : null,
      apis.length ? group('数据接口', apis) : null,
      !skillOps.length && !apis.length ? h('p', { class: 'empty' }, '没有匹配的操作，换个关键词试试。') : null);
  };
  let timer;
  box.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(search, 250);
  });
  showAll();
}

function group(name, ops, reasons) {
  return h('section', { class: 'group' }, h('h2', {}, name, h('span', { class: 'count' }, ` ${ops.length}`)),
    h('ul', { class: 'cards' }, ops.map((op) => card(op, reasons && reasons.get(op.operationKey)))));
}

function card(op, reasons) {
  const { callable, note } = availability(op);
  const inner = [
    h('span', { class: 'card-title' }, op.title),
    h('span', { class: 'card-summary' }, op.summary),
    h('span', { class: 'card-meta' }, h('span', { class: 'price' }, priceText(op)), op.platform ? ` · ${op.platform}` : op.category ? ` · ${op.category}` : ''),
    reasons && reasons.length ? h('span', { class: 'reasons' }, `匹配：${reasons.join('；')}`) : null,
    callable ? null : h('span', { class: 'disabled-note' }, note),
  ];
  return h('li', { class: callable ? 'card' : 'card disabled', dataset: { operation: op.operationKey } },
    callable ? h('a', { href: `#/op/${encodeURIComponent(op.operationKey)}` }, inner) : h('div', { 'aria-disabled': 'true' }, inner));
}
