// Dialogs in the page (a modal <dialog>), in place of prompt() and confirm(): they can be styled, read by
// screen readers as dialogs, and driven by tests like the rest of the page.
import { $, el } from './util.js';

let closing = null;

/** Shows the dialog with `title`, `content` nodes and `buttons` ([label, value, cls]); resolves with the value
 *  of the button pressed, or null on Escape/Cancel. `onOpen` runs after it is shown (to focus a field). */
export function dialog(title, content, buttons, onOpen) {
  const d = $('dialog');
  if (d.open) d.close();
  d.textContent = '';
  const form = el('form', 'dialog-form', null, { method: 'dialog' });
  const h = el('h2', null, title, { id: 'dialog-title' });
  const bodyBox = el('div', 'dialog-body');
  bodyBox.append(...content);
  const bar = el('div', 'dialog-buttons');
  return new Promise((resolve) => {
    let result = null;
    for (const [label, value, cls] of buttons) {
      const b = el('button', cls || '', label, { type: value === null ? 'button' : 'submit', 'data-value': String(value) });
      b.addEventListener('click', (ev) => {
        if (value === null) { ev.preventDefault(); result = null; d.close(); return; }
        result = value;
      });
      bar.append(b);
    }
    form.append(h, bodyBox, bar);
    d.append(form);
    d.setAttribute('aria-labelledby', 'dialog-title');
    closing = () => resolve(result);
    d.addEventListener('cancel', () => { result = null; }, { once: true });
    d.addEventListener('close', () => { const c = closing; closing = null; if (c) c(); }, { once: true });
    d.showModal();
    if (onOpen) onOpen(d);
  });
}

/** A yes/no question; resolves true when confirmed. */
export async function confirmAction(title, message, okLabel, danger) {
  const r = await dialog(title, [el('p', null, message)], [['Cancel', null], [okLabel, 'ok', danger ? 'danger' : 'primary']],
    (d) => d.querySelector('button.' + (danger ? 'danger' : 'primary')).focus());
  return r === 'ok';
}

/** Asks for a line of text; resolves with it, or null when cancelled. `check` returns an error text or ''. */
export function askText(title, label, value, okLabel, check) {
  const input = el('input', null, null, { type: 'text', id: 'dialog-input', autocomplete: 'off', spellcheck: 'false' });
  input.value = value || '';
  const error = el('p', 'error', '', { role: 'alert' });
  const lab = el('label', null, label, { for: 'dialog-input' });
  input.addEventListener('input', () => { error.textContent = check ? check(input.value) : ''; });
  return new Promise((resolve) => {
    dialog(title, [lab, input, error], [['Cancel', null], [okLabel, 'ok', 'primary']], (d) => {
      input.focus();
      input.select();
      d.querySelector('form').addEventListener('submit', (ev) => {
        const problem = check ? check(input.value) : '';
        if (problem) { ev.preventDefault(); error.textContent = problem; }
      });
    }).then((r) => resolve(r === 'ok' ? input.value : null));
  });
}

/** Lets the user walk the folder tree from `start` (segments) and choose one; `list(segs)` gives the
 *  names of the folders in a folder. Resolves with the chosen segments, or null. */
export function pickFolder(title, start, list, okLabel) {
  let at = start.slice();
  const where = el('p', 'picker-where', '', { 'aria-live': 'polite' });
  const ul = el('ul', 'picker', null, { id: 'picker', 'aria-label': 'Folders' });
  async function show() {
    where.textContent = 'Into: /' + at.join('/');
    ul.textContent = '';
    const rows = at.length ? [['..', at.slice(0, -1), 'Up one folder']] : [];
    let names = [];
    try { names = await list(at); } catch (e) { where.textContent += ' (cannot list: ' + e.message + ')'; }
    names.forEach((n) => rows.push([n, at.concat(n), 'Open ' + n]));
    for (const [label, segs, aria] of rows) {
      const li = el('li');
      const b = el('button', 'folder-choice', label === '..' ? '↑ Up' : label, { type: 'button', 'aria-label': aria, 'data-name': label });
      b.addEventListener('click', () => { at = segs; show(); });
      li.append(b);
      ul.append(li);
    }
  }
  show();
  return dialog(title, [where, ul], [['Cancel', null], [okLabel, 'ok', 'primary']])
    .then((r) => (r === 'ok' ? at : null));
}

export function closeDialog() { const d = $('dialog'); if (d.open) d.close(); }
