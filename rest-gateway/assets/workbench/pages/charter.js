// The positioning-charter editor (spec 2.5): load a profile's charter, edit
// it in the form of `ip-profile.charter.put`'s input descriptor (selects
// from the charter's value lists), save it; errors land on their fields.

import { h, replace } from 'wb/dom.js';
import { request } from 'wb/api.js';
import { buildForm } from 'wb/form.js';
import { invoke } from 'wb/invoke.js';
import { codeText, detail, errorHeadline, fieldText } from 'wb/messages.js';

const PUT = 'ip-profile.charter.put';

export function charterPage(main, { byKey }) {
  const op = byKey.get(PUT);
  if (!op || !op.route) {
    replace(main, h('h1', {}, '定位宪章'), h('p', { class: 'notice' }, '目录中没有保存宪章的操作。'));
    return;
  }
  const idInput = h('input', { id: 'profile-id', type: 'text', value: 'default', autocomplete: 'off' });
  const loadStatus = h('p', { class: 'help', role: 'status' });
  const holder = h('div');
  const output = h('div', { 'aria-live': 'polite' });
  const load = async () => {
    const id = idInput.value.trim() || 'default';
    const path = id === 'default' ? '/api/ip-profile/charter' : `/api/ip-profile/${encodeURIComponent(id)}/charter`;
    const { status, envelope } = await request('GET', path);
    let initial = { id, charter: { version: 1 } };
    if (envelope.success) {
      initial = { id, charter: envelope.data.charter };
      loadStatus.textContent = envelope.data.charterUpdatedAt ? `上次保存：${envelope.data.charterUpdatedAt}` : '尚未保存过，以下为空白宪章。';
    } else if (status === 404) {
      loadStatus.textContent = `档案「${id}」还没有宪章，填写后保存即可创建。`;
    } else {
      loadStatus.textContent = `读取失败：${codeText(envelope.error.code)}。${detail(envelope.error)}`;
    }
    const form = buildForm(op.inputUiSchema, { initial, keepEmpty: true, submitLabel: `${op.taskUi.actionLabel} · 免费`, onSubmit: () => save(form) });
    replace(holder, form.node);
    replace(output);
  };
  const save = async (form) => {
    const { object, errors } = form.values();
    if (errors.length) return form.showErrors(errors);
    form.clearErrors();
    form.submit.disabled = true;
    const { status, envelope } = await invoke(op, object);
    form.submit.disabled = false;
    if (envelope.success) {
      replace(output, h('p', { class: 'ok', role: 'status' }, `已保存（${envelope.data.charterUpdatedAt || ''}）`));
      return;
    }
    const error = envelope.error;
    if (error.field) {
      const path = error.field.startsWith('charter.') || error.field === 'id' ? error.field : `charter.${error.field}`;
      form.showErrors([{ path, message: fieldText(error) }]);
    }
    replace(output, h('div', { class: 'error-box', role: 'alert' }, h('strong', {}, `保存失败：${errorHeadline(status, error)}`), h('p', { class: 'detail' }, detail(error))));
  };
  replace(main, 
    h('h1', {}, '定位宪章'),
    h('form', { class: 'inline', onsubmit: (e) => { e.preventDefault(); load(); } },
      h('label', { for: 'profile-id' }, '档案 ID'), idInput, h('button', { type: 'submit' }, '读取')),
    loadStatus, holder, output);
  load();
}
