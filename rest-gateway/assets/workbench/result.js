// Results rendered only from an output descriptor (spec 2.4: `sections[]`
// of kind collection, fields, document, media, articlePreview, and ours,
// chart; section fields with path, label and role title/meta/summary/url).

import { h, safeUrl } from 'wb/dom.js';
import { getPath } from 'wb/form.js';
import { chartSection } from 'wb/chart.js';
import { accountOf, accountLink } from 'wb/account-link.js';

/**
 * The sections of `descriptor` for `data`, as one node. `platform`: the
 * operation's platform token, for rows that name an account without one.
 */
export function renderResult(descriptor, data, { platform } = {}) {
  const sections = (descriptor && descriptor.sections) || [];
  if (!sections.length) return h('p', { class: 'empty' }, '此操作没有结果描述，请查看原始 JSON。');
  return h('div', { class: 'result' }, sections.map((section) => renderSection(section, data, platform)));
}

function renderSection(section, data, platform) {
  const body = {
    collection: (s, d) => collection(s, d, platform),
    fields: fieldList,
    document: documentText,
    media: mediaGrid,
    articlePreview: articlePreview,
    chart: chartSection,
  }[section.kind];
  const content = body ? body(section, data) : h('p', { class: 'empty' }, `未知的结果类型 ${section.kind}`);
  return h('section', { class: `result-section kind-${section.kind}`, dataset: { kind: section.kind } },
    h('h3', {}, section.label || ''), content);
}

function empty(section) {
  return h('p', { class: 'empty' }, section.emptyText || '暂无数据');
}

function isEmpty(value) {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/**
 * A table, one row per element of `collectionPath`, one column per field,
 * and a last column linking to the account a row names (account-link.js).
 */
function collection(section, data, platform) {
  const items = getPath(data, section.collectionPath);
  if (!Array.isArray(items) || !items.length) return empty(section);
  const fields = section.fields || [];
  const accounts = items.map((item) => accountOf(item, platform));
  const linked = accounts.some(Boolean);
  const head = h('tr', {}, fields.map((f) => h('th', { scope: 'col' }, f.label || f.path)), linked ? h('th', { scope: 'col' }, '账号走势') : null);
  const rows = items.map((item, i) => h('tr', {}, fields.map((f) => h('td', { class: `role-${f.role}` }, value(f, getPath(item, f.path)))),
    linked ? h('td', {}, accounts[i] ? accountLink(accounts[i]) : '') : null));
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': section.label || '结果' },
    h('table', {}, h('thead', {}, head), h('tbody', {}, rows)),
    h('p', { class: 'count' }, `共 ${items.length} 条`));
}

/** A definition list of the section's fields. */
function fieldList(section, data) {
  const fields = section.fields || [];
  const shown = fields.filter((f) => !isEmpty(getPath(data, f.path)));
  if (!shown.length) return empty(section);
  return h('dl', { class: 'fields' }, shown.map((f) => [h('dt', {}, f.label || f.path), h('dd', { class: `role-${f.role}` }, value(f, getPath(data, f.path)))]));
}

/** Formatted text (kept as text: line breaks shown, nothing interpreted). */
function documentText(section, data) {
  const text = getPath(data, section.path);
  if (isEmpty(text)) return empty(section);
  return h('div', { class: 'document' }, typeof text === 'string' ? text : JSON.stringify(text, null, 2));
}

/** An image grid from `collectionPath` with `urlPath` and `titlePath`. */
function mediaGrid(section, data) {
  const items = getPath(data, section.collectionPath);
  const list = Array.isArray(items) ? items : items ? [items] : [];
  const shown = list.map((item) => ({ url: safeImage(getPath(item, section.urlPath)), title: getPath(item, section.titlePath) })).filter((m) => m.url);
  if (!shown.length) return empty(section);
  return h('ul', { class: 'media' }, shown.map((m) => h('li', {},
    h('a', { href: m.url, target: '_blank', rel: 'noopener noreferrer' },
      h('img', { src: m.url, alt: m.title || '', loading: 'lazy', width: 320, height: 240 })),
    m.title ? h('span', { class: 'caption' }, String(m.title)) : null)));
}

function safeImage(url) {
  if (typeof url === 'string' && /^data:image\/(png|jpeg|gif|webp);base64,/.test(url)) return url;
  return safeUrl(url);
}

/**
 * The rendered article in a sandboxed frame (no scripts, no same-origin
 * access): the HTML is never put into this page itself.
 */
export function articlePreview(section, data) {
  const html = getPath(data, section.path);
  if (isEmpty(html)) return empty(section);
  return previewFrame(html, section.label || '文章预览');
}

/** A sandboxed iframe showing `html`. */
export function previewFrame(html, title) {
  const frame = h('iframe', { class: 'preview', sandbox: '', title, referrerpolicy: 'no-referrer' });
  frame.srcdoc = `<!doctype html><meta charset="utf-8"><body style="margin:0;padding:16px;background:#fff">${html}</body>`;
  return frame;
}

/** One value by its role: `url` a link, `title` strong, lists joined. */
function value(field, raw) {
  if (isEmpty(raw)) return h('span', { class: 'none' }, '—');
  if (field.role === 'url') {
    const url = safeUrl(raw);
    return url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, String(raw)) : String(raw);
  }
  const text = Array.isArray(raw)
    ? raw.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join('、')
    : typeof raw === 'object' ? JSON.stringify(raw) : typeof raw === 'number' ? raw.toLocaleString('zh-CN') : String(raw);
  return field.role === 'title' ? h('strong', {}, text) : text;
}
