// The article editor: Markdown on the left, the WeChat-ready rendering on
// the right (`POST /api/articles/render`, free) with the theme picker of
// `GET /api/articles/themes`; the banned-word check with its hits marked in
// the text; "save as draft" to an authorized official account
// (`GET /api/articles/status`, `POST /api/articles/publish`).

import { h, replace } from 'wb/dom.js';
import { request, refreshBalance } from 'wb/api.js';
import { previewFrame } from 'wb/result.js';
import { priceText } from 'wb/catalog.js';
import { codeText, detail, errorHeadline } from 'wb/messages.js';

const RENDER_DELAY_MS = 400;
const CHECK = 'tool.check-banned-words';
const PUBLISH = 'articles.publish';

export async function editorPage(main, { byKey }) {
  const title = h('input', { id: 'article-title', type: 'text', placeholder: '文章标题（作为 H1）' });
  const markdown = h('textarea', { id: 'markdown', rows: 24, spellcheck: 'false', placeholder: '# 在这里写 Markdown' });
  const theme = h('select', { id: 'theme' });
  const renderStatus = h('span', { class: 'help', role: 'status' });
  const preview = h('div', { class: 'preview-holder' }, h('p', { class: 'empty' }, '输入 Markdown 后在这里预览。'));
  const checkOp = byKey.get(CHECK);
  const publishOp = byKey.get(PUBLISH);
  const checkButton = h('button', { type: 'button' }, `检查违禁词 · ${checkOp ? priceText(checkOp) : '1 点'}`);
  const checkOut = h('div', { class: 'check-result', 'aria-live': 'polite' });
  const account = h('select', { id: 'account' });
  const digest = h('input', { id: 'digest', type: 'text', placeholder: '可不填' });
  const publishButton = h('button', { type: 'button', class: 'primary' }, `保存为草稿 · ${publishOp ? priceText(publishOp) : '1 点'}`);
  const publishOut = h('div', { 'aria-live': 'polite' });
  let html = '';

  replace(main, 
    h('h1', {}, '文章编辑'),
    h('div', { class: 'editor' },
      h('div', { class: 'pane' },
        h('div', { class: 'field' }, h('label', { for: 'article-title' }, '标题'), title),
        h('div', { class: 'field' }, h('label', { for: 'markdown' }, 'Markdown'), markdown),
        h('div', { class: 'actions' }, checkButton), checkOut),
      h('div', { class: 'pane' },
        h('div', { class: 'field inline' }, h('label', { for: 'theme' }, '主题'), theme, renderStatus),
        preview)),
    h('section', { class: 'publish' }, h('h2', {}, '保存到公众号草稿箱'),
      h('div', { class: 'field' }, h('label', { for: 'account' }, '公众号'), account),
      h('div', { class: 'field' }, h('label', { for: 'digest' }, '摘要'), digest),
      h('div', { class: 'actions' }, publishButton), publishOut));

  let timer;
  let generation = 0;
  const render = async () => {
    if (!markdown.value.trim()) return;
    const mine = ++generation;
    renderStatus.textContent = '渲染中…';
    const { envelope } = await request('POST', '/api/articles/render', { body: { markdown: markdown.value, title: title.value, themeId: theme.value } });
    if (mine !== generation) return;
    if (!envelope.success) {
      renderStatus.textContent = `渲染失败：${codeText(envelope.error.code)}。${detail(envelope.error)}`;
      return;
    }
    html = envelope.data.html;
    renderStatus.textContent = `主题：${envelope.data.themeId}${(envelope.data.warnings || []).length ? ` · ${envelope.data.warnings.join('；')}` : ''}`;
    preview.dataset.theme = envelope.data.themeId;
    replace(preview, previewFrame(html, '文章预览'));
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(render, RENDER_DELAY_MS);
  };
  markdown.addEventListener('input', later);
  title.addEventListener('input', later);
  theme.addEventListener('change', render);

  checkButton.addEventListener('click', async () => {
    const content = markdown.value;
    if (!content.trim()) return replace(checkOut, h('p', { class: 'help' }, '没有可检查的内容。'));
    checkButton.disabled = true;
    const { status: code, envelope } = await request('POST', checkOp ? checkOp.route.path : '/api/apis/tool/check-banned-words/call', { body: { platform: '公众号', content } });
    checkButton.disabled = false;
    refreshBalance();
    if (!envelope.success) return replace(checkOut, h('div', { class: 'error-box', role: 'alert' }, `检查失败：${errorHeadline(code, envelope.error)}。${detail(envelope.error)}`));
    const hits = (envelope.data.raw && envelope.data.raw.hits) || [];
    replace(checkOut, hits.length
      ? [h('p', {}, `发现 ${hits.length} 处：${(envelope.data.prohibitedWordsType || []).join('、')}`), marked(content, hits),
        h('ul', { class: 'hits' }, hits.map((hit) => h('li', {}, h('mark', {}, hit.text), ` ${hit.category}${hit.rule ? `（${hit.rule}）` : ''}${hit.suggestion ? `，可改为：${hit.suggestion}` : ''}`)))]
      : h('p', { class: 'ok' }, '未发现违禁词。'));
  });

  publishButton.addEventListener('click', async () => {
    if (!title.value.trim()) return replace(publishOut, h('p', { class: 'field-error', role: 'alert' }, '请先填写标题。'));
    if (!html) await render();
    if (!html) return replace(publishOut, h('p', { class: 'field-error', role: 'alert' }, '请先写好正文。'));
    publishButton.disabled = true;
    const { status: code, envelope } = await request('POST', publishOp ? publishOp.route.path : '/api/articles/publish', {
      body: { authorizerAppid: account.value, title: title.value, contentHtml: html, digest: digest.value },
    });
    publishButton.disabled = false;
    refreshBalance();
    replace(publishOut, envelope.success
      ? h('p', { class: 'ok', role: 'status' }, `已保存为草稿（media_id ${envelope.data.mediaId}）`)
      : h('div', { class: 'error-box', role: 'alert' }, `保存失败：${errorHeadline(code, envelope.error)}。${detail(envelope.error)}`));
  });

  // Listeners first: typing before the lists arrive is not lost.
  const [themes, status] = await Promise.all([request('GET', '/api/articles/themes'), request('GET', '/api/articles/status')]);
  if (themes.envelope.success) {
    const data = themes.envelope.data;
    const option = (t, group) => h('option', { value: t.id, selected: t.id === data.default }, `${t.name}（${group}）`);
    replace(theme, data.builtin.map((t) => option(t, '内置')), (data.custom || []).map((t) => option(t, '自定义')));
  }
  const accounts = status.envelope.success ? status.envelope.data.accounts : [];
  if (accounts.length) {
    replace(account, accounts.map((a) => h('option', { value: a.authorizerAppid }, `${a.nickname}（${a.authorizerAppid}）`)));
  } else {
    account.disabled = true;
    publishButton.disabled = true;
    replace(account, h('option', { value: '' }, '没有已授权的公众号'));
    const link = h('button', { type: 'button' }, '获取授权链接');
    link.addEventListener('click', async () => {
      const { envelope } = await request('GET', '/api/articles/authorize-link');
      replace(publishOut, envelope.success
        ? h('p', {}, '请在微信中打开：', h('a', { href: envelope.data.url, target: '_blank', rel: 'noopener noreferrer' }, envelope.data.url))
        : h('p', { class: 'error-box' }, `${codeText(envelope.error.code)}。${detail(envelope.error)}`));
    });
    replace(publishOut, h('p', { class: 'help' }, '先授权一个公众号才能保存草稿。'), link);
  }

  if (markdown.value.trim()) render();
}

/**
 * `text` with each hit (`start`/`end` in characters, i.e. code points) in
 * a `<mark>`: built from text nodes, never from the service's HTML.
 */
function marked(text, hits) {
  const chars = Array.from(text);
  const out = h('div', { class: 'marked' });
  let at = 0;
  for (const hit of [...hits].sort((a, b) => a.start - b.start)) {
    if (hit.start < at) continue;
    out.append(chars.slice(at, hit.start).join(''), h('mark', { title: hit.category }, chars.slice(hit.start, hit.end).join('')));
    at = hit.end;
  }
  out.append(chars.slice(at).join(''));
  return out;
}
