// The app's state and what every part of it uses: the page's mode and places, the folder shown and its
// items, URLs of files and folders, and the status line.
import { $, enc } from './util.js';

export const body = document.body;
export const MODE = body.dataset.mode;          // "app" (signed in) or "share" (read-only link)
export const BASE = body.dataset.base;          // where listings and files live, relative to the page
export const ROOT = body.dataset.root;          // from the page back to the server root
export const SHARED = document.title.replace(/ · Skylift$/, '');

export const S = {
  folder: [],          // decoded segments of the folder shown
  entries: [],         // its members, sorted
  view: localStorage.getItem('skylift.view') || 'list',
  groupBy: localStorage.getItem('skylift.group') || 'day',
  search: null,        // { q, items, next, loading } while search results are shown
  timeline: null,      // { items, next, loading } for the folder shown
  selected: new Set(), // keys (path from the root) of selected items
  anchor: -1,          // index of the last item clicked, for shift-click
  sortKey: 'name',
  sortDir: 1,
};
if (!['list', 'grid', 'timeline'].includes(S.view)) S.view = 'list';

// ---- paths and URLs ------------------------------------------------------------------------------------
export const folderURL = (segs) => BASE + segs.map((s) => enc(s) + '/').join('');
export const fileURL = (segs) => BASE + segs.map(enc).join('/');
export const folderHash = (segs) => '#/' + segs.map(enc).join('/');
export const keyOf = (e) => e.segs.join('/');
export const version = (e) => e.etag || e.mtime + '-' + e.size;
export const thumbURL = (e, size) => fileURL(e.segs) + '?thumb=' + size + '&v=' + enc(version(e));
export const validName = (n) => (!n || n === '.' || n === '..' || n.includes('/') ? 'A name cannot be empty, "." or "..", or hold "/".' : '');

export function readHash() {
  const h = location.hash.replace(/^#\/?/, '');
  try { return h.split('/').filter(Boolean).map(decodeURIComponent); } catch (e) { return []; }
}

// Messages stay until the next one, and at least 8 s; the item count has its own place beside them.
let sayTimer = 0;
export function say(text) {
  $('status').textContent = text;
  clearTimeout(sayTimer);
  sayTimer = setTimeout(() => { $('status').textContent = ''; }, Math.max(8000, text.length * 80));
}
export const count = (text) => { $('count').textContent = text; };

// ---- what is shown -------------------------------------------------------------------------------------
/** The items of the current view, in the order shown (the viewer and shift-click walk this order). */
export function shown() {
  if (S.search) return S.search.items;
  if (S.view === 'timeline') return S.timeline ? S.timeline.items : [];
  return S.entries;
}

/** Set by app.js: lists the folder shown again (after a change). */
export const hooks = { load: () => {} };
