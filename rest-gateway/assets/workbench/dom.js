// Small DOM helpers: every string goes in as text, never as HTML.

/**
 * Creates an element. `attrs`: `class`, `text`, `on<event>` handlers,
 * `dataset`, booleans (set when true), anything else as an attribute.
 * Children: nodes, strings (as text), arrays, null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = String(value);
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

/** Appends children (nodes, strings, nested arrays; null/false skipped). */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces the children of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/**
 * Help text with its `code` spans (between backticks) as `<code>`
 * elements, everything as text nodes: `粘贴 `mk_…` 开头的 Key` shows
 * `mk_…` in code type, never literal backticks. An unpaired backtick
 * stays as it is.
 */
export function richText(text) {
  const parts = String(text).split('`');
  if (parts.length % 2 === 0) return [String(text)];
  return parts.map((part, i) => (i % 2 === 1 ? h('code', {}, part) : part)).filter((part) => part !== '');
}

/** A unique element id with `prefix`. */
let counter = 0;
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Only http(s) URLs become links or images; anything else stays text. */
export function safeUrl(value) {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Copies `text` to the clipboard; falls back to a hidden textarea. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { class: 'offscreen', 'aria-hidden': 'true' });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}
