// Uploads over tus 1.0 (resumable): a queue, per-file and total progress with speed and time left, cancel
// and retry. The upload URL is kept in localStorage under the file's identity, so after a reload (the same
// file picked again) or a lost connection the upload continues from the offset the server reports.
import { $, el, button, humanSize, humanDuration } from './util.js';

const TUS = { 'Tus-Resumable': '1.0.0' };
const chunkSize = () => parseInt(localStorage.getItem('skylift.chunk') || '', 10) || 8 * 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const b64 = (s) => { let bin = ''; new TextEncoder().encode(s).forEach((b) => { bin += String.fromCharCode(b); }); return btoa(bin); };

function fatal(message) { const e = new Error(message); e.fatal = true; return e; }
function cancelled() { const e = new Error('cancelled'); e.fatal = true; e.cancelled = true; return e; }

/** Measures a rate over the last few seconds, for "2.1 MB/s, 40 s left". */
class Rate {
  constructor() { this.samples = []; }
  add(bytes) {
    const now = performance.now();
    this.samples.push([now, bytes]);
    while (this.samples.length > 2 && now - this.samples[0][0] > 5000) this.samples.shift();
  }
  perSecond() {
    if (this.samples.length < 2) return 0;
    const [t0, b0] = this.samples[0], [t1, b1] = this.samples[this.samples.length - 1];
    return t1 > t0 ? ((b1 - b0) * 1000) / (t1 - t0) : 0;
  }
  describe(left) {
    const r = this.perSecond();
    if (r <= 0) return '';
    return humanSize(Math.round(r)) + '/s' + (left > 0 ? ', ' + humanDuration(left / r) + ' left' : '');
  }
}

export class Uploader {
  /** `folderURL(segs)`: where to create uploads; `root`: the way back to the server root; `finished(dest)`
   *  after each file; `say(text)` for messages. */
  constructor(folderURL, root, finished, say) {
    Object.assign(this, { folderURL, root, finished, say });
    this.pending = [];
    this.running = false;
    this.total = 0;
    this.done = 0;
    this.rate = new Rate();
  }

  enqueue(items, dest) {
    if (!items.length) return;
    $('uploads').hidden = false;
    for (const item of items) {
      item.dest = dest.slice();
      item.ui = this.row(item);
      this.total += item.file.size;
      this.pending.push(item);
    }
    this.updateTotal();
    if (!this.running) this.drain();
  }

  row(item) {
    const li = el('li', null, null, { 'data-name': item.rel, 'data-state': 'queued' });
    const label = el('span', 'up-name', item.rel, { title: item.rel });
    const bar = el('progress', null, null, { 'aria-label': 'Progress of ' + item.rel });
    bar.max = Math.max(1, item.file.size);
    bar.value = 0;
    const note = el('span', 'note', 'waiting');
    const cancel = button('Cancel', 'Cancel upload of ' + item.rel, () => this.cancel(item), 'up-cancel');
    const retry = button('Retry', 'Retry upload of ' + item.rel, () => this.retry(item), 'up-retry');
    retry.hidden = true;
    li.append(label, bar, note, cancel, retry);
    $('upload-list').append(li);
    return { li, bar, note, cancel, retry, sent: 0, rate: new Rate() };
  }

  progress(item, at) {
    this.done += at - item.ui.sent;
    item.ui.sent = at;
    item.ui.bar.value = at;
    item.ui.rate.add(at);
    this.rate.add(this.done);
    if (item.ui.li.dataset.state === 'sending') item.ui.note.textContent = item.ui.rate.describe(item.file.size - at) || item.ui.note.textContent;
    this.updateTotal();
  }

  updateTotal() {
    $('upload-total-bar').max = Math.max(1, this.total);
    $('upload-total-bar').value = this.done;
    const speed = this.running ? this.rate.describe(this.total - this.done) : '';
    $('upload-total').textContent = humanSize(this.done) + ' of ' + humanSize(this.total) + (speed ? ' · ' + speed : '');
  }

  cancel(item) {
    item.cancelled = true;
    if (item.xhr) item.xhr.abort();
    const i = this.pending.indexOf(item);
    if (i >= 0) { this.pending.splice(i, 1); this.settle(item, 'cancelled', 'cancelled'); }
  }

  retry(item) {
    item.cancelled = false;
    this.total += item.file.size;
    item.ui.retry.hidden = true;
    item.ui.cancel.hidden = false;
    item.ui.li.dataset.state = 'queued';
    item.ui.note.textContent = 'waiting';
    this.pending.push(item);
    this.updateTotal();
    if (!this.running) this.drain();
  }

  /** Ends an item's run: its bytes leave the totals unless it finished. */
  settle(item, state, note) {
    item.ui.li.dataset.state = state;
    item.ui.note.textContent = note;
    item.ui.cancel.hidden = true;
    item.ui.retry.hidden = state === 'done';
    if (state !== 'done') { this.total -= item.file.size; this.done -= item.ui.sent; item.ui.sent = 0; }
    this.updateTotal();
  }

  async drain() {
    this.running = true;
    while (this.pending.length) {
      const item = this.pending.shift();
      item.ui.li.dataset.state = 'sending';
      try {
        await this.upload(item);
        this.settle(item, 'done', item.ui.li.dataset.resumedFrom ? 'resumed from ' + humanSize(+item.ui.li.dataset.resumedFrom) + '; done' : 'done');
      } catch (e) {
        if (e.cancelled) { this.settle(item, 'cancelled', 'cancelled'); this.forget(item); }
        else this.settle(item, 'failed', 'failed: ' + e.message);
      }
      this.finished(item.dest);
    }
    this.running = false;
    this.updateTotal();
  }

  key(item) { const f = item.file; return 'skylift.upload:' + JSON.stringify([item.dest, item.rel, f.size, f.lastModified]); }

  /** A cancelled upload is dropped on the server too (tus termination), so its space comes back. The server
   *  answers 423 while the aborted PATCH still holds the upload, so that is tried again a few times. */
  async forget(item) {
    const url = localStorage.getItem(this.key(item)) || item.url;
    localStorage.removeItem(this.key(item));
    item.url = null;
    for (let attempt = 0; url && attempt < 6; attempt++) {
      try {
        const r = await fetch(url, { method: 'DELETE', headers: TUS });
        if (r.status !== 423) return;
      } catch (e) { return; }
      await sleep(250 * 2 ** attempt);
    }
  }

  async resumeOffset(item, key) {
    const url = localStorage.getItem(key);
    if (!url) return null;
    const r = await fetch(url, { method: 'HEAD', headers: TUS, cache: 'no-store' });
    if (!r.ok) { localStorage.removeItem(key); return null; }
    const offset = parseInt(r.headers.get('Upload-Offset'), 10) || 0;
    item.ui.li.dataset.resumedFrom = String(offset);
    item.ui.note.textContent = 'resumed from ' + humanSize(offset);
    return { url, offset };
  }

  async create(item, key) {
    const f = item.file;
    const headers = Object.assign({ 'Upload-Length': String(f.size),
      'Upload-Metadata': 'filename ' + b64(f.name) + ',relativePath ' + b64(item.rel) }, TUS);
    const r = await fetch(this.folderURL(item.dest), { method: 'POST', headers });
    if (r.status !== 201) throw fatal('server refused the upload (' + r.status + ')');
    const url = this.root + 'uploads/' + (r.headers.get('Location') || '').split('/').pop();
    if (f.size > 0) localStorage.setItem(key, url);
    return url;
  }

  async upload(item) {
    const f = item.file;
    const key = this.key(item);
    const resumed = await this.resumeOffset(item, key);
    let offset = resumed ? resumed.offset : 0;
    const url = resumed ? resumed.url : await this.create(item, key);
    item.url = url;
    this.progress(item, offset);
    let failures = 0;
    while (offset < f.size) {
      if (item.cancelled) throw cancelled();
      try {
        offset = await this.patch(url, f, offset, item);
        failures = 0;
      } catch (e) {
        if (item.cancelled) throw cancelled();
        if (e.fatal || ++failures > 8) { if (e.fatal) localStorage.removeItem(key); throw e; }
        item.ui.note.textContent = 'connection lost; retrying';
        item.ui.li.dataset.retries = String(failures);
        await sleep(Math.min(30000, 500 * 2 ** failures));
        offset = await this.serverOffset(url, key, offset);
      }
    }
    localStorage.removeItem(key);
    this.progress(item, f.size);
  }

  async serverOffset(url, key, offset) {
    try {
      const r = await fetch(url, { method: 'HEAD', headers: TUS, cache: 'no-store' });
      if (r.status === 404 || r.status === 410) { localStorage.removeItem(key); throw fatal('the upload expired on the server'); }
      if (r.ok) return parseInt(r.headers.get('Upload-Offset'), 10) || offset;
    } catch (h) { if (h.fatal) throw h; }
    return offset;
  }

  patch(url, f, offset, item) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      item.xhr = xhr;
      xhr.open('PATCH', url);
      xhr.setRequestHeader('Tus-Resumable', '1.0.0');
      xhr.setRequestHeader('Upload-Offset', String(offset));
      xhr.setRequestHeader('Content-Type', 'application/offset+octet-stream');
      xhr.upload.onprogress = (ev) => this.progress(item, offset + ev.loaded);
      xhr.onload = () => {
        if (xhr.status === 204) resolve(parseInt(xhr.getResponseHeader('Upload-Offset'), 10));
        else if (xhr.status === 409 || xhr.status === 423 || xhr.status >= 500) reject(new Error('server answered ' + xhr.status));
        else reject(fatal('server answered ' + xhr.status + ': ' + xhr.responseText.trim()));
      };
      xhr.onerror = () => reject(new Error('connection lost'));
      xhr.onabort = () => reject(cancelled());
      xhr.send(f.slice(offset, Math.min(f.size, offset + chunkSize())));
    });
  }
}
