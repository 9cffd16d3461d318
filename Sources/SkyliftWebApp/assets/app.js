// Skylift web app: browse (list, grid, timeline), search, select and act, view, upload (tus), share.
// No framework, no network beyond this server. Modules: state, util, dialogs, gallery, viewer, preview, manage,
// upload, shares, qr.
import { $, el, enc, button, humanSize, stamp, typeName, shape, hasThumb, isMedia, isText, isPDF } from './util.js';
import { Gallery, groupLabel } from './gallery.js';
import { SharesUI } from './shares.js';
import { body, MODE, ROOT, SHARED, S, folderURL, fileURL, folderHash, keyOf, thumbURL, readHash, say, count, shown, hooks } from './state.js';
import { openViewer, step, closeViewer } from './viewer.js';
import { rename, move, remove, newFolder, pickFiles, dropped } from './manage.js';

async function load() {
  S.folder = readHash();
  S.search = null;
  $('q').value = '';
  S.selected.clear();
  S.anchor = -1;
  renderCrumbs();
  $('zip').href = folderURL(S.folder) + '?zip';
  $('zip').setAttribute('download', (S.folder[S.folder.length - 1] || 'files') + '.zip');
  count('Loading…');
  let response;
  try { response = await fetch(folderURL(S.folder) + '?list', { cache: 'no-store' }); } catch (e) { count('Cannot reach the server.'); return; }
  if (response.status === 401) { location.href = ROOT || './'; return; }
  if (!response.ok) { count('Cannot list this folder (' + response.status + ').'); S.entries = []; render(); return; }
  const data = await response.json();
  S.entries = data.entries.map((e) => Object.assign(e, { segs: S.folder.concat(e.name) }));
  sortEntries();
  S.timeline = null;
  // Someone opening a shared album for the first time (no view chosen yet) sees its pictures as a grid.
  if (MODE === 'share' && !localStorage.getItem('skylift.view') && S.entries.filter((e) => hasThumb(e.type)).length * 2 > S.entries.length) S.view = 'grid';
  if (S.view === 'timeline') loadTimeline(); else render();
}

function sortEntries() {
  const key = S.sortKey;
  S.entries.sort((a, b) => {
    if (a.dir !== b.dir) return a.dir ? -1 : 1;
    let r = 0;
    if (key === 'size' || key === 'mtime') r = a[key] - b[key];
    else if (key === 'type') r = typeName(a.type, a.name).localeCompare(typeName(b.type, b.name));
    if (r === 0) r = a.name.localeCompare(b.name, undefined, { numeric: true });
    return r * S.sortDir;
  });
  document.querySelectorAll('.row.head button[data-sort]').forEach((b) => {
    if (b.dataset.sort === S.sortKey) b.parentElement.setAttribute('aria-sort', S.sortDir > 0 ? 'ascending' : 'descending');
    else b.parentElement.removeAttribute('aria-sort');
  });
}

/** Pages of `?timeline` (or `?search`) as the view asks for more; `into` holds { items, next, loading }. */
async function fetchPage(into, query, map) {
  if (into.loading || into.next === null) return;
  into.loading = true;
  const url = folderURL(S.folder) + '?' + query + (into.next ? '&after=' + enc(into.next) : '') + '&limit=500';
  try {
    const r = await fetch(url, { cache: 'no-store' });
    const json = (r.headers.get('Content-Type') || '').includes('json');
    if (!r.ok || !json) throw new Error(r.ok || r.status === 400 || r.status === 404 ? 'this server does not offer it' : 'answer ' + r.status);
    const data = await r.json();
    into.items.push(...data.items.map(map));
    into.next = data.next || null;
  } catch (e) {
    into.error = e.message;
    into.next = null;
  }
  into.loading = false;
}

const fromPath = (x) => Object.assign(x, { segs: S.folder.concat(x.path.split('/')), dir: !!x.dir });

async function loadTimeline() {
  const t = S.timeline || (S.timeline = { items: [], next: undefined, loading: false });
  // Nothing more to fetch: drawing must not ask again, or drawing and asking would chase each other forever.
  if (t.loading || t.next === null) return;
  await fetchPage(t, 'timeline', (x) => Object.assign(fromPath(x), { mtime: Date.parse(x.taken) / 1000 }));
  if (S.timeline !== t || S.view !== 'timeline' || S.search) return;
  // Without ?timeline on the server, the folder's own photos and videos by their modification time.
  if (t.error && !t.items.length) {
    t.items = S.entries.filter((e) => !e.dir && hasThumb(e.type)).map((e) => Object.assign({}, e, { taken: new Date(e.mtime * 1000).toISOString() }))
      .sort((a, b) => b.mtime - a.mtime);
  }
  // Drawn after every page, even an empty one: drawing asks for the next page while the end is in view.
  render();
  count(t.error ? t.items.length + ' photos and videos in this folder (the server offers no timeline of the folders below: ' + t.error + ')'
    : t.items.length + (t.next ? '+' : '') + ' photos and videos in this folder and below');
}

async function runSearch(q) {
  S.search = { q, items: [], next: undefined, loading: false };
  S.selected.clear();
  S.anchor = -1;
  await moreResults();
}

async function moreResults() {
  const s = S.search;
  if (!s || s.loading || s.next === null) return;
  await fetchPage(s, 'search=' + enc(s.q), (x) => Object.assign(fromPath(x), { mtime: Date.parse(x.modified) / 1000 }));
  if (S.search !== s) return;
  if (s.error && !s.items.length) {
    const q = s.q.toLowerCase();
    s.items = S.entries.filter((e) => e.name.toLowerCase().includes(q)).map((e) => Object.assign({}, e, { path: e.name }));
  }
  render();
  count(s.error ? s.items.length + ' found for “' + s.q + '” in this folder only (the server cannot search below: ' + s.error + ')' : s.items.length + (s.next ? '+' : '') + ' found for “' + s.q + '” in this folder and below');
}

function renderCrumbs() {
  const nav = $('crumbs');
  nav.textContent = '';
  const parts = [MODE === 'share' ? 'Shared: ' + SHARED : 'Home'].concat(S.folder);
  parts.forEach((name, i) => {
    if (i > 0) nav.append(el('span', 'sep', '/'));
    const a = el('a', null, name, { href: folderHash(S.folder.slice(0, i)) });
    if (i === parts.length - 1) a.setAttribute('aria-current', 'page');
    nav.append(a);
  });
  document.title = (S.folder[S.folder.length - 1] || (MODE === 'share' ? SHARED : 'Home')) + ' · Skylift';
}

function render() {
  const list = S.search || S.view === 'list';
  $('table').hidden = !list;
  $('gallery').hidden = list;
  body.dataset.view = S.search ? 'search' : S.view;
  for (const v of ['list', 'grid', 'timeline']) $('view-' + v).setAttribute('aria-pressed', String(S.view === v && !S.search));
  $('group').hidden = S.view !== 'timeline' || !!S.search;
  if (!S.search && S.view !== 'timeline') count(S.entries.length === 1 ? '1 item' : S.entries.length + ' items');
  if (list) renderRows(true);
  else gallery.setItems(shown(), S.view === 'timeline' ? (e) => groupLabel(e.taken, S.groupBy) : null);
  updateSelection();
}

function setView(v) {
  S.view = v;
  localStorage.setItem('skylift.view', v);
  S.search = null;
  $('q').value = '';
  S.selected.clear();
  S.anchor = -1;
  if (v === 'timeline' && !S.timeline) loadTimeline(); else render();
}

// ---- list view: only the rows in view exist in the page -----------------------------------------------
const rowHeight = () => parseInt(getComputedStyle(document.documentElement).getPropertyValue('--row'), 10) || 44;
let rendered = '';

function renderRows(force) {
  const scroller = $('scroller');
  const items = shown();
  const h = rowHeight();
  $('spacer').style.height = items.length * h + 'px';
  const first = Math.max(0, Math.floor(scroller.scrollTop / h) - 5);
  const last = Math.min(items.length, first + Math.ceil((scroller.clientHeight || 600) / h) + 10);
  const key = first + ':' + last + ':' + h;
  if (!force && key === rendered) return;
  rendered = key;
  const rows = $('rows');
  rows.style.top = first * h + 'px';
  rows.textContent = '';
  for (let i = first; i < last; i++) rows.append(row(items[i], i));
  if (S.search && last >= items.length - 5 && S.search.next) moreResults();
}

// Thumbnails come from `?thumb`; where the server has none (an older server, or a file it cannot read)
// the tile keeps its icon. After a few failures and no success, no more are asked for in this page.
const thumbs = { ok: 0, failed: 0 };
function picture(e, size, cls) {
  const box = el('span', cls, null, { 'aria-hidden': 'true' });
  box.append(shape(e));
  if (e.dir || !hasThumb(e.type) || (thumbs.failed >= 3 && !thumbs.ok)) return box;
  const img = el('img', null, null, { alt: '', decoding: 'async', src: thumbURL(e, size) });
  img.hidden = true;
  img.addEventListener('load', () => { thumbs.ok++; img.hidden = false; box.classList.add('has-thumb'); });
  img.addEventListener('error', () => { thumbs.failed++; img.remove(); });
  box.append(img);
  return box;
}

function openItem(e, ev) {
  if (e.dir) return;
  if (isMedia(e.type) || isText(e.type, e.name) || isPDF(e.type, e.name)) { ev.preventDefault(); openViewer(e); }
}

function nameLink(e) {
  const a = el('a', null, S.search ? e.path : e.name, { href: e.dir ? folderHash(e.segs) : fileURL(e.segs) });
  if (!e.dir) a.addEventListener('click', (ev) => openItem(e, ev));
  return a;
}

function pickBox(e, i) {
  const box = el('input', 'pick', null, { type: 'checkbox', 'aria-label': 'Select ' + e.name });
  box.checked = S.selected.has(keyOf(e));
  box.addEventListener('click', (ev) => { ev.stopPropagation(); select(i, ev.shiftKey ? 'range' : 'toggle'); });
  return box;
}

function actionsFor(e) {
  const acts = el('span', 'c-act', null, { role: 'cell' });
  if (MODE === 'app') {
    acts.append(
      button('Rename', 'Rename ' + e.name, () => rename(e)),
      button('Move', 'Move ' + e.name, () => move([e])),
      button('Delete', 'Delete ' + e.name, () => remove([e])),
      button('Share', 'Share ' + e.name, () => shares.create('/' + e.segs.join('/'), e.name)));
  } else {
    const a = el('a', 'button', e.dir ? 'Download zip' : 'Download', { href: e.dir ? folderURL(e.segs) + '?zip' : fileURL(e.segs),
      download: e.dir ? e.name + '.zip' : e.name, 'aria-label': 'Download ' + e.name });
    acts.append(a);
  }
  return acts;
}

function row(e, i) {
  const r = el('div', 'row', null, { role: 'row', 'data-name': S.search ? e.path : e.name, 'data-index': String(i) });
  if (S.selected.has(keyOf(e))) r.classList.add('selected');
  const name = el('span', 'c-name', null, { role: 'cell' });
  name.append(picture(e, 128, 'icon'), nameLink(e));
  const cell = (cls, text, title) => el('span', cls, text, Object.assign({ role: 'cell' }, title ? { title } : {}));
  r.append(el('span', 'c-pick', null, { role: 'cell' }), name, cell('c-size', e.dir ? '' : humanSize(e.size)),
    cell('c-date', stamp(new Date(e.mtime * 1000))), cell('c-type', typeName(e.type, e.name), e.dir ? '' : e.type), actionsFor(e));
  r.firstChild.append(pickBox(e, i));
  r.addEventListener('click', (ev) => rowClick(ev, i));
  return r;
}

function tile(e, i) {
  const t = el('div', 'tile', null, { role: 'gridcell', 'data-name': S.search ? e.path : e.name, 'data-index': String(i), title: e.path || e.name });
  if (S.selected.has(keyOf(e))) t.classList.add('selected');
  const a = nameLink(e);
  a.className = 'tile-link';
  a.textContent = '';
  a.append(picture(e, 256, 'thumb'), el('span', 'tile-name', e.name));
  t.append(a, pickBox(e, i));
  t.addEventListener('click', (ev) => rowClick(ev, i));
  return t;
}

// ---- selection: click, ctrl-click, shift-click, select all --------------------------------------------
function rowClick(ev, i) {
  if (ev.target.closest('a, button, input')) {
    if (ev.target.closest('a') && (ev.ctrlKey || ev.metaKey || ev.shiftKey)) { ev.preventDefault(); select(i, ev.shiftKey ? 'range' : 'toggle'); }
    return;
  }
  select(i, ev.shiftKey ? 'range' : 'toggle');
}

function select(i, how) {
  const items = shown();
  if (how === 'range' && S.anchor >= 0 && S.anchor < items.length) {
    const [a, b] = S.anchor < i ? [S.anchor, i] : [i, S.anchor];
    for (let k = a; k <= b; k++) S.selected.add(keyOf(items[k]));
  } else {
    const k = keyOf(items[i]);
    if (S.selected.has(k)) S.selected.delete(k); else S.selected.add(k);
  }
  S.anchor = i;
  refreshSelection();
}

function selectAll(on) {
  S.selected.clear();
  if (on) shown().forEach((e) => S.selected.add(keyOf(e)));
  refreshSelection();
}

const selectedItems = () => shown().filter((e) => S.selected.has(keyOf(e)));

function refreshSelection() {
  document.querySelectorAll('#rows .row, #gitems .tile').forEach((r) => {
    const e = shown()[+r.dataset.index];
    const on = !!e && S.selected.has(keyOf(e));
    r.classList.toggle('selected', on);
    const box = r.querySelector('input.pick');
    if (box) box.checked = on;
  });
  updateSelection();
}

function updateSelection() {
  const n = S.selected.size;
  $('selbar').hidden = n === 0;
  body.classList.toggle('selecting', n > 0);
  $('sel-count').textContent = n === 1 ? '1 selected' : n + ' selected';
  const all = $('pick-all');
  all.checked = n > 0 && n === shown().length;
  all.indeterminate = n > 0 && n < shown().length;
  // A zip names members of the folder shown; search and timeline results may lie deeper.
  const direct = selectedItems().every((e) => e.segs.length === S.folder.length + 1);
  $('sel-zip').disabled = !direct;
  $('sel-zip').title = direct ? '' : 'Only members of this folder can be zipped together';
}

function zipSelection() {
  const names = selectedItems().map((e) => e.name);
  const a = el('a', null, null, { href: folderURL(S.folder) + '?zip' + names.map((n) => '&name=' + enc(n)).join(''),
    download: (S.folder[S.folder.length - 1] || 'files') + '.zip' });
  document.body.append(a);
  a.click();
  a.remove();
  say('Downloading ' + names.length + (names.length === 1 ? ' item' : ' items') + ' as a zip.');
}

// ---- wiring --------------------------------------------------------------------------------------------
const shares = new SharesUI(ROOT, say);
const gallery = new Gallery($('gscroller'), $('gspacer'), $('gitems'), tile, () => { if (S.view === 'timeline' && !S.search) loadTimeline(); });

function wire() {
  document.querySelectorAll('.row.head button[data-sort]').forEach((b) => b.addEventListener('click', () => {
    if (S.sortKey === b.dataset.sort) S.sortDir = -S.sortDir; else { S.sortKey = b.dataset.sort; S.sortDir = 1; }
    sortEntries();
    renderRows(true);
  }));
  $('scroller').addEventListener('scroll', () => renderRows(false), { passive: true });
  window.addEventListener('resize', () => renderRows(true));
  window.addEventListener('hashchange', load);
  for (const v of ['list', 'grid', 'timeline']) $('view-' + v).addEventListener('click', () => setView(v));
  $('group').value = S.groupBy;
  $('group').addEventListener('change', () => { S.groupBy = $('group').value; localStorage.setItem('skylift.group', S.groupBy); render(); });
  $('search').addEventListener('submit', (ev) => { ev.preventDefault(); const q = $('q').value.trim(); if (q) runSearch(q); else load(); });
  $('q').addEventListener('search', () => { if (!$('q').value && S.search) { S.search = null; render(); } });
  $('pick-all').addEventListener('change', () => selectAll($('pick-all').checked));
  $('sel-all').addEventListener('click', () => selectAll(true));
  $('sel-clear').addEventListener('click', () => selectAll(false));
  $('sel-zip').addEventListener('click', zipSelection);
  $('sel-delete').addEventListener('click', () => remove(selectedItems()));
  $('sel-move').addEventListener('click', () => move(selectedItems()));
  $('prev').addEventListener('click', () => step(-1));
  $('next').addEventListener('click', () => step(1));
  $('close').addEventListener('click', closeViewer);
  document.addEventListener('keydown', keys);
  if (MODE === 'app') {
    $('pick-files').addEventListener('change', () => pickFiles($('pick-files'), false));
    $('pick-folder').addEventListener('change', () => pickFiles($('pick-folder'), true));
    $('new-folder').addEventListener('click', newFolder);
    $('shares-open').addEventListener('click', () => shares.manage());
    wireDrop();
  }
}

function keys(ev) {
  if (!$('viewer').hidden) {
    if (ev.key === 'Escape') closeViewer();
    else if (ev.key === 'ArrowLeft' && !(ev.target instanceof HTMLMediaElement)) step(-1);
    else if (ev.key === 'ArrowRight' && !(ev.target instanceof HTMLMediaElement)) step(1);
    return;
  }
  if ($('dialog').open || ev.target.closest('input, select, textarea')) return;
  if ((ev.ctrlKey || ev.metaKey) && ev.key === 'a') { ev.preventDefault(); selectAll(true); }
  else if (ev.key === 'Escape' && S.selected.size) selectAll(false);
  else if (ev.key === 'Delete' && S.selected.size && MODE === 'app') remove(selectedItems());
  else if (ev.key.startsWith('Arrow') && ev.target.closest('#gitems .tile')) moveFocus(ev);
}

/** Arrow keys between tiles: left/right one, up/down a row; the grid scrolls to show the tile. */
function moveFocus(ev) {
  const at = +ev.target.closest('.tile').dataset.index;
  const delta = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -gallery.m.cols, ArrowDown: gallery.m.cols }[ev.key];
  const to = Math.max(0, Math.min(shown().length - 1, at + delta));
  ev.preventDefault();
  gallery.reveal(to);
  gallery.render(false);
  const link = document.querySelector('#gitems .tile[data-index="' + to + '"] a');
  if (link) link.focus();
}

function wireDrop() {
  let depth = 0;
  const hide = () => { depth = 0; $('drop').hidden = true; };
  document.addEventListener('dragenter', (ev) => { ev.preventDefault(); depth++; $('drop').hidden = false; });
  document.addEventListener('dragleave', () => { if (--depth <= 0) hide(); });
  document.addEventListener('dragover', (ev) => ev.preventDefault());
  document.addEventListener('dragend', hide);
  document.addEventListener('drop', (ev) => { ev.preventDefault(); hide(); dropped(ev.dataTransfer); });
}

hooks.load = load;
wire();
load();
