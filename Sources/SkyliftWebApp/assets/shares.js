// Share links from the app: create one with an expiry in minutes, hours or days, copy it, show it as a QR
// code; list the live ones with their expiry and revoke them.
import { el, button, absolute, stamp } from './util.js';
import { dialog } from './dialogs.js';
import { qrSVG } from './qr.js';

export class SharesUI {
  /** `root`: from the page back to the server root; `say(text)` for messages. */
  constructor(root, say) { this.root = root; this.say = say; }

  /** Copies `text`; the clipboard API where the page may use it, else a selected field and execCommand. */
  async copy(text, field) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      if (!field) throw e;
      field.select();
      if (!document.execCommand('copy')) throw e;
    }
    this.say('Link copied.');
  }

  linkBox(link) {
    const field = el('input', null, null, { id: 'share-link', type: 'text', readonly: '', 'aria-label': 'Share link' });
    field.value = link;
    const copy = button('Copy', 'Copy the link', () => this.copy(link, field).catch((e) => this.say('Cannot copy: ' + e.message)), 'primary');
    copy.id = 'share-copy';
    const qr = el('div', 'qr', null, { id: 'share-qr' });
    try { qr.append(qrSVG(link, 220)); qr.firstChild.setAttribute('aria-label', 'QR code of the link'); } catch (e) { qr.textContent = e.message; }
    const line = el('div', 'share-line');
    line.append(field, copy);
    return [line, qr];
  }

  /** The dialog for sharing `path` (`/a/b`) named `name`. */
  async create(path, name) {
    const amount = el('input', null, null, { id: 'share-amount', type: 'number', min: '1', max: '365', value: '7', 'aria-label': 'Expires after' });
    const unit = el('select', null, null, { id: 'share-unit', 'aria-label': 'Unit' });
    for (const [v, label] of [['m', 'minutes'], ['h', 'hours'], ['d', 'days']]) {
      const o = el('option', null, label, { value: v });
      if (v === 'd') o.selected = true;
      unit.append(o);
    }
    const row = el('div', 'share-line');
    row.append(el('label', null, 'Expires after', { for: 'share-amount' }), amount, unit);
    const error = el('p', 'error', '', { role: 'alert' });
    const answer = await dialog('Share “' + name + '” read-only', [el('p', null, 'Anyone with the link can view and download it until it expires.'), row, error],
      [['Cancel', null], ['Create link', 'ok', 'primary']], () => amount.focus());
    if (answer !== 'ok') return;
    const n = Math.max(1, Math.min(unit.value === 'm' ? 525600 : unit.value === 'h' ? 8760 : 365, parseInt(amount.value, 10) || 1));
    const r = await fetch(this.root + 'api/share', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path, expires: n + unit.value }) });
    if (!r.ok) { this.say('Cannot share: ' + (await r.text()).trim()); return; }
    const made = await r.json();
    const link = absolute(this.root + made.link);
    const until = typeof made.expires === 'number' ? ' It works until ' + stamp(new Date(made.expires * 1000)) + '.' : '';
    this.say('Share link to “' + name + '” created.' + until);
    await dialog('Link to “' + name + '”', [el('p', null, 'Read-only link.' + until), ...this.linkBox(link)], [['Done', 'ok', 'primary']],
      (d) => d.querySelector('#share-copy').focus());
  }

  /** The list of live shares, each with its expiry, a copy button and revoke. */
  async manage() {
    const list = el('ul', 'share-list', null, { id: 'share-list' });
    const note = el('p', 'note', 'Loading…');
    const fill = async () => {
      list.textContent = '';
      let r;
      try { r = await fetch(this.root + 'api/shares', { cache: 'no-store' }); } catch (e) { note.textContent = 'Cannot reach the server.'; return; }
      if (!r.ok) { note.textContent = r.status === 404 ? 'This server cannot list share links.' : 'Cannot list share links (' + r.status + ').'; return; }
      const shares = (await r.json()).shares || [];
      note.textContent = shares.length ? shares.length + (shares.length === 1 ? ' live link' : ' live links') : 'No live share links.';
      shares.sort((a, b) => a.expires - b.expires);
      for (const s of shares) list.append(this.shareRow(s, fill));
    };
    fill();
    await dialog('Share links', [note, list], [['Close', 'ok']]);
  }

  shareRow(s, refill) {
    const link = absolute(this.root + s.link);
    const li = el('li', null, null, { 'data-id': s.id, 'data-path': s.path });
    const what = el('span', 'share-path', s.path, { title: link });
    const when = el('span', 'share-expiry', 'until ' + stamp(new Date(s.expires * 1000)));
    const copy = button('Copy', 'Copy the link to ' + s.path, () => this.copy(link).catch((e) => this.say('Cannot copy: ' + e.message)));
    const revoke = button('Revoke', 'Revoke the link to ' + s.path, async () => {
      const r = await fetch(this.root + 'api/shares/' + encodeURIComponent(s.id), { method: 'DELETE' });
      this.say(r.ok ? 'Link to ' + s.path + ' revoked.' : 'Cannot revoke (' + r.status + ').');
      refill();
    }, 'danger');
    li.append(what, when, copy, revoke);
    return li;
  }
}
