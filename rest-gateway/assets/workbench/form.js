// A form rendered only from an input descriptor (spec 2.4: `fields[]` with
// path, label, control, valueType, required, placeholder, help, advanced,
// options), with the checks the descriptor allows on the client side.

import { h, uid, richText } from 'wb/dom.js';

const TAGS_HELP = '多个值用逗号或换行分隔';

/**
 * Builds the form. Answers `{node, values, showErrors, clearErrors}`:
 * `values()` gives `{object, errors}` (the request object built from the
 * field paths, and `[{path, message}]` of client-side problems);
 * `showErrors(errors)` marks fields (unknown paths go to the form's top).
 */
export function buildForm(descriptor, { initial = {}, onSubmit, submitLabel, disabled = false, keepEmpty = false } = {}) {
  const fields = (descriptor && descriptor.fields) || [];
  const controls = fields.map((field) => control(field, getPath(initial, field.path), keepEmpty));
  const basic = controls.filter((c) => !c.field.advanced).map((c) => c.node);
  const advanced = controls.filter((c) => c.field.advanced).map((c) => c.node);
  const top = h('div', { class: 'form-error', role: 'alert', hidden: true });
  const submit = h('button', { type: 'submit', class: 'primary', disabled }, submitLabel);
  const form = h(
    'form',
    { class: 'op-form', novalidate: true },
    top,
    basic,
    advanced.length ? h('details', { class: 'advanced' }, h('summary', {}, `高级选项（${advanced.length}）`), advanced) : null,
    h('div', { class: 'actions' }, submit),
  );

  const clearErrors = () => {
    top.hidden = true;
    top.textContent = '';
    controls.forEach((c) => c.setError(null));
  };
  const showErrors = (errors) => {
    clearErrors();
    const unplaced = [];
    for (const error of errors) {
      const target = controls.find((c) => c.field.path === error.path)
        || controls.find((c) => error.path && (error.path.startsWith(`${c.field.path}.`) || error.path.startsWith(`${c.field.path}[`)));
      if (target) target.setError(error.message);
      else unplaced.push(error.path ? `${error.path}：${error.message}` : error.message);
    }
    if (unplaced.length) {
      top.hidden = false;
      top.textContent = unplaced.join('；');
    }
    const first = controls.find((c) => c.hasError());
    if (first) {
      const details = first.node.closest('details');
      if (details) details.open = true;
      first.focus();
    }
  };
  const values = () => {
    const object = {};
    const errors = [];
    for (const c of controls) {
      const { value, error } = c.read();
      if (error) errors.push({ path: c.field.path, message: error });
      else if (value !== undefined) setPath(object, c.field.path, value);
    }
    return { object, errors };
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSubmit && onSubmit();
  });
  return { node: form, values, showErrors, clearErrors, submit };
}

/**
 * One field: label, control, help, error line. With `keepEmpty`, an empty
 * required field is sent as `""` / `[]` (a charter's undecided values, spec
 * 2.5) instead of being refused here.
 */
function control(field, initial, keepEmpty) {
  const id = uid('f');
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const options = field.options || [];
  const help = [field.help, field.valueType.endsWith('[]') && !options.length ? TAGS_HELP : null].filter(Boolean).join('；');
  const described = [help ? helpId : null, errorId].filter(Boolean).join(' ');
  const common = { id, name: field.path, 'aria-describedby': described, 'aria-required': field.required ? 'true' : null };
  let input;
  let read;
  let focusTarget;
  if (field.control === 'select' && options.length) {
    input = h(
      'select',
      common,
      field.required && options.some((o) => o.value === '') ? null : h('option', { value: '' }, field.required ? '请选择' : '（不填）'),
      options.map((o) => h('option', { value: o.value }, o.label || o.value)),
    );
    if (initial !== undefined && initial !== null) input.value = String(initial);
    read = () => scalar(field, input.value, keepEmpty);
  } else if (field.control === 'tags' && options.length) {
    const chosen = new Set(Array.isArray(initial) ? initial.map(String) : []);
    const boxes = options.filter((o) => o.value !== '').map((o) => {
      const box = h('input', { type: 'checkbox', value: o.value, id: uid('c'), checked: chosen.has(o.value) });
      return { box, node: h('label', { class: 'check', for: box.id }, box, o.label || o.value) };
    });
    input = h('div', { class: 'checks', role: 'group', 'aria-labelledby': `${id}-label`, 'aria-describedby': described }, boxes.map((b) => b.node));
    focusTarget = boxes.length ? boxes[0].box : input;
    read = () => list(field, boxes.filter((b) => b.box.checked).map((b) => b.box.value), keepEmpty);
  } else {
    const type = { number: 'number', url: 'url', date: 'date' }[field.control] || 'text';
    const multiline = field.control === 'textarea' || field.control === 'tags';
    input = multiline
      ? h('textarea', { ...common, rows: field.control === 'tags' ? 2 : 6, placeholder: field.placeholder || null })
      : h('input', { ...common, type, placeholder: field.placeholder || null, step: type === 'number' ? 'any' : null, inputmode: type === 'number' ? 'decimal' : null });
    if (initial !== undefined && initial !== null) input.value = Array.isArray(initial) ? initial.join('\n') : String(initial);
    read = () => (field.valueType.endsWith('[]') ? list(field, splitTags(input.value), keepEmpty) : scalar(field, input.value.trim(), keepEmpty));
  }
  const error = h('p', { class: 'field-error', id: errorId, role: 'alert' });
  const label = h('label', { id: `${id}-label`, for: input.tagName === 'DIV' ? null : id }, field.label || field.path,
    field.required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : null,
    field.required ? h('span', { class: 'offscreen' }, '（必填）') : null);
  const node = h('div', { class: 'field', dataset: { path: field.path, control: field.control } },
    label, input, help ? h('p', { class: 'help', id: helpId }, richText(help)) : null, error);
  const target = focusTarget || input;
  return {
    field,
    node,
    read: () => read(),
    focus: () => target.focus(),
    hasError: () => error.textContent !== '',
    setError: (message) => {
      error.textContent = message || '';
      node.classList.toggle('invalid', Boolean(message));
      target.setAttribute('aria-invalid', message ? 'true' : 'false');
    },
  };
}

/** A scalar's value from its text: `undefined` when empty and optional. */
function scalar(field, text, keepEmpty) {
  if (text === '' && keepEmpty && field.required && field.valueType === 'string') return { value: '' };
  if (text === '') return field.required ? { error: '必填' } : { value: undefined };
  if (field.valueType === 'number') {
    const number = Number(text);
    return Number.isFinite(number) ? { value: number } : { error: '请输入数字' };
  }
  if (field.control === 'url') {
    try {
      const url = new URL(text);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: '请输入 http(s) 链接' };
    } catch {
      return { error: '请输入完整链接（以 http:// 或 https:// 开头）' };
    }
  }
  if (field.control === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { error: '日期格式为 YYYY-MM-DD' };
  return { value: text };
}

function list(field, items, keepEmpty) {
  if (!items.length && keepEmpty && field.required) return { value: [] };
  if (!items.length) return field.required ? { error: '至少填写一项' } : { value: undefined };
  if (field.valueType === 'number[]') {
    const numbers = items.map(Number);
    return numbers.every(Number.isFinite) ? { value: numbers } : { error: '每一项都须是数字' };
  }
  return { value: items };
}

function splitTags(text) {
  return text.split(/[,，、\n]/).map((s) => s.trim()).filter(Boolean);
}

/** `a.b.c` of `object`, or undefined. */
export function getPath(object, path) {
  if (!path) return object;
  let value = object;
  for (const part of path.split('.')) {
    if (value === null || value === undefined) return undefined;
    value = value[part];
  }
  return value;
}

/** Sets `a.b.c` of `object`, making the objects on the way. */
export function setPath(object, path, value) {
  const parts = path.split('.');
  let node = object;
  parts.slice(0, -1).forEach((part) => {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part];
  });
  node[parts[parts.length - 1]] = value;
}
