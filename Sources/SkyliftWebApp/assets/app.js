// Skylift web app: browse, view, upload (tus), manage. No framework, no network beyond this server.
'use strict';
(() => {
  const body = document.body;
  const MODE = body.dataset.mode;          // "app" (signed in) or "share" (read-only link)
  const BASE = body.dataset.base;          // where listings and files live, relative to the page
  const ROOT = body.dataset.root;          // from the page back to the server root
  const $ = (id) => document.getElementById(id);
  const MEDIA = /^(image|video|audio)\//;

  let folder = [];                         // decoded segments of the folder shown
  let entries = [];                        // its members, sorted
  let sortKey = 'name';
  let sortDir = 1;

  // ---- paths and URLs ------------------------------------------------------------------------------------
  const enc = (s) => encodeURIComponent(s);
  const folderURL = (segs) => BASE + segs.map((s) => enc(s) + '/').join('');
  const fileURL = (segs) => BASE + segs.map(enc).join('/');
  const folderHash = (segs) => '#/' + segs.map(enc).join('/');
  const absolute = (rel) => new URL(rel, location.href).href;

  function readHash() {
    const h = location.hash.replace(/^#\/?/, '');
    try { return h.split('/').filter(Boolean).map(decodeURIComponent); } catch (e) { return []; }
  }

  function say(text) { $('status').textContent = text; }

  function humanSize(n) {
    if (n < 1024) return n + ' B';
    const units = ['KB', 'MB', 'GB', 'TB'];
    let v = n, i = -1;
    do { v /= 1024; i++; } while (v >= 1024 && i < units.length - 1);
    return v.toFixed(v < 10 ? 1 : 0) + ' ' + units[i];
  }

  // ---- listing -------------------------------------------------------------------------------------------
  async function load() {
    folder = readHash();
    renderCrumbs();
    $('zip').href = folderURL(folder) + '?zip';
    $('zip').setAttribute('download', (folder[folder.length - 1] || 'files') + '.zip');
    say('Loading…');
    let response;
    try { response = await fetch(folderURL(folder) + '?list', { cache: 'no-store' }); } catch (e) { say('Cannot reach the server.'); return; }
    if (response.status === 401) { location.href = ROOT || './'; return; }
    if (!response.ok) { say('Cannot list this folder (' + response.status + ').'); entries = []; renderRows(true); return; }
    const data = await response.json();
    entries = data.entries;
    sortEntries();
    renderRows(true);
    say(entries.length === 1 ? '1 item' : entries.length + ' items');
  }

  function sortEntries() {
    const key = sortKey;
    const cmp = (a, b) => {
      if (a.dir !== b.dir) return a.dir ? -1 : 1;
      let r = 0;
      if (key === 'size' || key === 'mtime') r = a[key] - b[key];
      else if (key === 'type') r = a.type.localeCompare(b.type);
      if (r === 0) r = a.name.localeCompare(b.name, undefined, { numeric: true });
      return r * sortDir;
    };
    entries.sort(cmp);
    document.querySelectorAll('.row.head button[data-sort]').forEach((b) => {
      if (b.dataset.sort === sortKey) b.parentElement.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
      else b.parentElement.removeAttribute('aria-sort');
    });
  }

  function renderCrumbs() {
    const nav = $('crumbs');
    nav.textContent = '';
    const parts = [MODE === 'share' ? 'Shared' : 'Home'].concat(folder);
    parts.forEach((name, i) => {
      if (i > 0) { const s = document.createElement('span'); s.className = 'sep'; s.textContent = '/'; nav.append(s); }
      const a = document.createElement('a');
      a.href = folderHash(folder.slice(0, i));
      a.textContent = name;
      if (i === parts.length - 1) a.setAttribute('aria-current', 'page');
      nav.append(a);
    });
    document.title = (folder[folder.length - 1] || (MODE === 'share' ? 'Shared' : 'Home')) + ' · Skylift';
  }

  // Only the rows in view exist in the page, so a folder of 10,000 entries scrolls as fast as one of ten.
  const rowHeight = () => parseInt(getComputedStyle(document.documentElement).getPropertyValue('--row'), 10) || 44;
  let rendered = '';

  function renderRows(force) {
    const scroller = $('scroller');
    const h = rowHeight();
    $('spacer').style.height = entries.length * h + 'px';
    const first = Math.max(0, Math.floor(scroller.scrollTop / h) - 5);
    const last = Math.min(entries.length, first + Math.ceil((scroller.clientHeight || 600) / h) + 10);
    const key = first + ':' + last + ':' + h;
    if (!force && key === rendered) return;
    rendered = key;
    const rows = $('rows');
    rows.style.top = first * h + 'px';
    rows.textContent = '';
    for (let i = first; i < last; i++) rows.append(row(entries[i]));
  }

  // Icons are drawn as SVG, not emoji: a phone or a server without an emoji font still shows them.
  const SHAPES = {
    folder: 'M2 5a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1z',
    video: 'M3 5h13v14H3zM16 10l5-3v10l-5-3z',
    audio: 'M9 17a3 3 0 1 1-2-2.8V4l11-2v12a3 3 0 1 1-2-2.8V5.4L9 6.7z',
    file: 'M5 2h9l5 5v15H5zM14 2v5h5',
  };

  function icon(e) {
    const span = document.createElement('span');
    span.className = 'icon';
    span.setAttribute('aria-hidden', 'true');
    if (!e.dir && e.type.startsWith('image/')) {
      const img = document.createElement('img');
      img.loading = 'lazy';
      img.alt = '';
      img.src = fileURL(folder.concat(e.name));
      span.append(img);
      return span;
    }
    const kind = e.dir ? 'folder' : e.type.startsWith('video/') ? 'video' : e.type.startsWith('audio/') ? 'audio' : 'file';
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('class', 'shape ' + kind);
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', SHAPES[kind]);
    svg.append(path);
    span.append(svg);
    return span;
  }

  function when(seconds) {
    const d = new Date(seconds * 1000);
    const two = (n) => String(n).padStart(2, '0');
    return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + ' ' + two(d.getHours()) + ':' + two(d.getMinutes());
  }

  function button(label, title, action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.setAttribute('aria-label', title);
    b.addEventListener('click', action);
    return b;
  }

  function row(e) {
    const r = document.createElement('div');
    r.className = 'row';
    r.setAttribute('role', 'row');
    r.dataset.name = e.name;
    const name = document.createElement('span');
    name.className = 'c-name';
    name.setAttribute('role', 'cell');
    const a = document.createElement('a');
    a.textContent = e.name;
    if (e.dir) a.href = folderHash(folder.concat(e.name));
    else {
      a.href = fileURL(folder.concat(e.name));
      if (MEDIA.test(e.type)) a.addEventListener('click', (ev) => { ev.preventDefault(); openViewer(e.name); });
    }
    name.append(icon(e), a);
    const cell = (cls, text) => { const s = document.createElement('span'); s.className = cls; s.setAttribute('role', 'cell'); s.textContent = text; return s; };
    const acts = document.createElement('span');
    acts.className = 'c-act';
    acts.setAttribute('role', 'cell');
    if (MODE === 'app') {
      acts.append(
        button('Rename', 'Rename ' + e.name, () => rename(e)),
        button('Move', 'Move ' + e.name, () => move(e)),
        button('Delete', 'Delete ' + e.name, () => remove(e)),
        button('Share', 'Share ' + e.name, () => share(e)));
    }
    r.append(name, cell('c-size', e.dir ? '' : humanSize(e.size)),
      cell('c-date', when(e.mtime)), cell('c-type', e.dir ? 'folder' : e.type), acts);
    return r;
  }

  // ---- viewer --------------------------------------------------------------------------------------------
  let viewing = -1;
  let returnFocus = null;
  const media = () => entries.filter((e) => !e.dir && MEDIA.test(e.type));

  function openViewer(name) {
    const list = media();
    viewing = list.findIndex((e) => e.name === name);
    if (viewing < 0) return;
    returnFocus = document.activeElement;
    $('viewer').hidden = false;
    show();
    $('close').focus();
  }

  function show() {
    const list = media();
    const e = list[viewing];
    const stage = $('stage');
    stage.textContent = '';
    $('viewer-name').textContent = e.name + ' (' + (viewing + 1) + ' of ' + list.length + ')';
    const src = fileURL(folder.concat(e.name));
    let el;
    if (e.type.startsWith('image/')) { el = document.createElement('img'); el.alt = e.name; }
    else { el = document.createElement(e.type.startsWith('video/') ? 'video' : 'audio'); el.controls = true; el.autoplay = true; el.preload = 'metadata'; }
    el.src = src;
    el.id = 'media';
    stage.append(el);
    $('prev').disabled = viewing === 0;
    $('next').disabled = viewing === list.length - 1;
  }

  function step(d) {
    const n = viewing + d;
    if (n >= 0 && n < media().length) { viewing = n; show(); }
  }

  function closeViewer() {
    $('stage').textContent = '';
    $('viewer').hidden = true;
    viewing = -1;
    if (returnFocus) returnFocus.focus();
  }

  // ---- managing ------------------------------------------------------------------------------------------
  async function davRequest(method, segs, headers) {
    const r = await fetch(fileURL(segs), { method, headers: headers || {} });
    if (!r.ok) throw new Error(method + ' failed: ' + r.status + ' ' + (await r.text()).trim());
    return r;
  }

  async function act(what, fn) {
    try { await fn(); say(what); } catch (e) { say(e.message); alert(e.message); }
    await load();
  }

  function validName(n) { return n && n !== '.' && n !== '..' && !n.includes('/'); }

  function rename(e) {
    const n = prompt('New name for "' + e.name + '"', e.name);
    if (n === null || n === e.name) return;
    if (!validName(n)) { alert('A name cannot be empty, "." or "..", or hold "/".'); return; }
    act('Renamed.', () => davRequest('MOVE', folder.concat(e.name),
      { Destination: absolute(fileURL(folder.concat(n))), Overwrite: 'F' }));
  }

  function move(e) {
    const to = prompt('Move "' + e.name + '" to which folder? (a path from Home, e.g. /photos/2026)', '/' + folder.join('/'));
    if (to === null) return;
    const segs = to.split('/').filter(Boolean);
    if (segs.some((s) => !validName(s))) { alert('That is not a folder path.'); return; }
    act('Moved.', () => davRequest('MOVE', folder.concat(e.name),
      { Destination: absolute(fileURL(segs.concat(e.name))), Overwrite: 'F' }));
  }

  function remove(e) {
    if (!confirm('Delete "' + e.name + '"' + (e.dir ? ' and everything in it' : '') + '? This cannot be undone.')) return;
    act('Deleted.', () => davRequest('DELETE', folder.concat(e.name)));
  }

  function newFolder() {
    const n = prompt('Name of the new folder');
    if (n === null) return;
    if (!validName(n)) { alert('A name cannot be empty, "." or "..", or hold "/".'); return; }
    act('Folder created.', () => davRequest('MKCOL', folder.concat(n)));
  }

  async function share(e) {
    const days = prompt('Share "' + e.name + '" read-only for how many days?', '7');
    if (days === null) return;
    const r = await fetch(ROOT + 'api/share', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: '/' + folder.concat(e.name).join('/'), expires: days + 'd' }) });
    if (!r.ok) { alert('Cannot share: ' + (await r.text()).trim()); return; }
    const link = absolute(ROOT + (await r.json()).link);
    say('Share link: ' + link);
    prompt('Read-only link (copy it):', link);
  }

  // ---- uploads (tus 1.0, resumable) ----------------------------------------------------------------------
  const TUS = { 'Tus-Resumable': '1.0.0' };
  const chunkSize = () => parseInt(localStorage.getItem('skylift.chunk') || '', 10) || 8 * 1024 * 1024;
  const pending = [];
  let running = false;
  let totalBytes = 0;
  let doneBytes = 0;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const b64 = (s) => { let bin = ''; new TextEncoder().encode(s).forEach((b) => { bin += String.fromCharCode(b); }); return btoa(bin); };

  function enqueue(items) {
    if (!items.length) return;
    $('uploads').hidden = false;
    for (const item of items) {
      item.dest = folder.slice();
      item.ui = uploadRow(item);
      totalBytes += item.file.size;
      pending.push(item);
    }
    updateTotal();
    if (!running) drain();
  }

  function uploadRow(item) {
    const li = document.createElement('li');
    const label = document.createElement('span');
    label.textContent = item.rel;
    const bar = document.createElement('progress');
    bar.max = Math.max(1, item.file.size);
    bar.value = 0;
    bar.setAttribute('aria-label', 'Progress of ' + item.rel);
    const note = document.createElement('span');
    note.className = 'note';
    li.dataset.name = item.rel;
    li.append(label, bar, note);
    $('upload-list').append(li);
    return { li, bar, note, sent: 0 };
  }

  function progress(item, at) {
    doneBytes += at - item.ui.sent;
    item.ui.sent = at;
    item.ui.bar.value = at;
    updateTotal();
  }

  function updateTotal() {
    $('upload-total-bar').max = Math.max(1, totalBytes);
    $('upload-total-bar').value = doneBytes;
    $('upload-total').textContent = humanSize(doneBytes) + ' of ' + humanSize(totalBytes);
  }

  async function drain() {
    running = true;
    while (pending.length) {
      const item = pending.shift();
      try {
        await upload(item);
        item.ui.li.dataset.state = 'done';
        item.ui.note.textContent = item.ui.note.textContent ? item.ui.note.textContent + '; done' : 'done';
      } catch (e) {
        item.ui.li.dataset.state = 'failed';
        item.ui.note.textContent = 'failed: ' + e.message;
      }
      if (item.dest.join('/') === folder.join('/')) load();
    }
    running = false;
  }

  function fatal(message) { const e = new Error(message); e.fatal = true; return e; }

  // The upload URL is kept in localStorage under the file's identity, so after a reload (the same file
  // picked again) or a lost connection the upload continues from the offset the server reports.
  async function upload(item) {
    const f = item.file;
    const key = 'skylift.upload:' + JSON.stringify([item.dest, item.rel, f.size, f.lastModified]);
    let url = localStorage.getItem(key);
    let offset = 0;
    if (url) {
      const r = await fetch(url, { method: 'HEAD', headers: TUS, cache: 'no-store' });
      if (r.ok) {
        offset = parseInt(r.headers.get('Upload-Offset'), 10) || 0;
        item.ui.li.dataset.resumedFrom = String(offset);
        item.ui.note.textContent = 'resumed from ' + humanSize(offset);
      } else { localStorage.removeItem(key); url = null; }
    }
    if (!url) {
      const headers = Object.assign({ 'Upload-Length': String(f.size),
        'Upload-Metadata': 'filename ' + b64(f.name) + ',relativePath ' + b64(item.rel) }, TUS);
      const r = await fetch(folderURL(item.dest), { method: 'POST', headers });
      if (r.status !== 201) throw fatal('server refused the upload (' + r.status + ')');
      url = ROOT + 'uploads/' + (r.headers.get('Location') || '').split('/').pop();
      if (f.size > 0) localStorage.setItem(key, url);
    }
    progress(item, offset);
    let failures = 0;
    while (offset < f.size) {
      try {
        offset = await patch(url, f, offset, item);
        failures = 0;
      } catch (e) {
        if (e.fatal || ++failures > 8) { if (e.fatal) localStorage.removeItem(key); throw e; }
        item.ui.note.textContent = 'connection lost; retrying';
        item.ui.li.dataset.retries = String(failures);
        await sleep(Math.min(30000, 500 * 2 ** failures));
        try {
          const r = await fetch(url, { method: 'HEAD', headers: TUS, cache: 'no-store' });
          if (r.status === 404 || r.status === 410) { localStorage.removeItem(key); throw fatal('the upload expired on the server'); }
          if (r.ok) offset = parseInt(r.headers.get('Upload-Offset'), 10) || offset;
        } catch (h) { if (h.fatal) throw h; }
      }
    }
    localStorage.removeItem(key);
    progress(item, f.size);
  }

  function patch(url, f, offset, item) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('PATCH', url);
      xhr.setRequestHeader('Tus-Resumable', '1.0.0');
      xhr.setRequestHeader('Upload-Offset', String(offset));
      xhr.setRequestHeader('Content-Type', 'application/offset+octet-stream');
      xhr.upload.onprogress = (ev) => progress(item, offset + ev.loaded);
      xhr.onload = () => {
        if (xhr.status === 204) resolve(parseInt(xhr.getResponseHeader('Upload-Offset'), 10));
        else if (xhr.status === 409 || xhr.status === 423 || xhr.status >= 500) reject(new Error('server answered ' + xhr.status));
        else reject(fatal('server answered ' + xhr.status + ': ' + xhr.responseText.trim()));
      };
      xhr.onerror = () => reject(new Error('connection lost'));
      xhr.send(f.slice(offset, Math.min(f.size, offset + chunkSize())));
    });
  }

  function pickFiles(input, useRelative) {
    const items = Array.from(input.files).map((file) => ({ file, rel: useRelative && file.webkitRelativePath ? file.webkitRelativePath : file.name }));
    input.value = '';
    enqueue(items);
  }

  async function dropped(dataTransfer) {
    const items = [];
    const entriesIn = Array.from(dataTransfer.items || []).map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
    if (!entriesIn.length) { Array.from(dataTransfer.files).forEach((file) => items.push({ file, rel: file.name })); }
    async function walk(entry) {
      if (entry.isFile) {
        const file = await new Promise((res, rej) => entry.file(res, rej));
        items.push({ file, rel: entry.fullPath.replace(/^\//, '') });
      } else if (entry.isDirectory) {
        const reader = entry.createReader();
        for (;;) {
          const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
          if (!batch.length) break;
          for (const child of batch) await walk(child);
        }
      }
    }
    for (const e of entriesIn) await walk(e);
    enqueue(items);
  }

  // ---- wiring --------------------------------------------------------------------------------------------
  document.querySelectorAll('.row.head button[data-sort]').forEach((b) => b.addEventListener('click', () => {
    if (sortKey === b.dataset.sort) sortDir = -sortDir; else { sortKey = b.dataset.sort; sortDir = 1; }
    sortEntries();
    renderRows(true);
  }));
  $('scroller').addEventListener('scroll', () => renderRows(false), { passive: true });
  window.addEventListener('resize', () => renderRows(true));
  window.addEventListener('hashchange', load);
  $('prev').addEventListener('click', () => step(-1));
  $('next').addEventListener('click', () => step(1));
  $('close').addEventListener('click', closeViewer);
  document.addEventListener('keydown', (ev) => {
    if ($('viewer').hidden) return;
    if (ev.key === 'Escape') closeViewer();
    else if (ev.key === 'ArrowLeft' && !(ev.target instanceof HTMLMediaElement)) step(-1);
    else if (ev.key === 'ArrowRight' && !(ev.target instanceof HTMLMediaElement)) step(1);
  });
  if (MODE === 'app') {
    $('pick-files').addEventListener('change', () => pickFiles($('pick-files'), false));
    $('pick-folder').addEventListener('change', () => pickFiles($('pick-folder'), true));
    $('new-folder').addEventListener('click', newFolder);
    let depth = 0;
    document.addEventListener('dragenter', (ev) => { ev.preventDefault(); depth++; $('drop').hidden = false; });
    document.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; $('drop').hidden = true; } });
    document.addEventListener('dragover', (ev) => ev.preventDefault());
    document.addEventListener('drop', (ev) => { ev.preventDefault(); depth = 0; $('drop').hidden = true; dropped(ev.dataTransfer); });
  }
  load();
})();
