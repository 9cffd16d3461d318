// Changing the store from the app: rename, move (with a folder picker), delete (confirmed in the page), new
// folders, and uploads from the file pickers or a drop.
import { absolute } from './util.js';
import { confirmAction, askText, pickFolder } from './dialogs.js';
import { Uploader } from './upload.js';
import { S, ROOT, folderURL, fileURL, validName, say, hooks } from './state.js';

async function davRequest(method, segs, headers) {
  const r = await fetch(fileURL(segs), { method, headers: headers || {} });
  if (!r.ok) throw new Error(method + ' failed: ' + r.status + ' ' + (await r.text()).trim());
  return r;
}

async function act(what, fn) {
  try { await fn(); await hooks.load(); say(what); } catch (e) { await hooks.load(); say(e.message); }
}

export async function rename(e) {
  const n = await askText('Rename', 'New name for “' + e.name + '”', e.name, 'Rename', validName);
  if (n === null || n === e.name) return;
  act('Renamed.', () => davRequest('MOVE', e.segs, { Destination: absolute(fileURL(e.segs.slice(0, -1).concat(n))), Overwrite: 'F' }));
}

async function folderNames(segs) {
  const r = await fetch(folderURL(segs) + '?list', { cache: 'no-store' });
  if (!r.ok) throw new Error(String(r.status));
  return (await r.json()).entries.filter((x) => x.dir).map((x) => x.name);
}

export async function move(items) {
  const what = items.length === 1 ? '“' + items[0].name + '”' : items.length + ' items';
  const to = await pickFolder('Move ' + what, S.folder, folderNames, 'Move here');
  if (!to) return;
  act(items.length === 1 ? 'Moved.' : 'Moved ' + items.length + ' items.', async () => {
    for (const e of items) {
      if (to.join('/') === e.segs.slice(0, -1).join('/')) continue;
      await davRequest('MOVE', e.segs, { Destination: absolute(fileURL(to.concat(e.name))), Overwrite: 'F' });
    }
  });
}

export async function remove(items) {
  const dirs = items.some((e) => e.dir);
  const what = items.length === 1 ? '“' + items[0].name + '”' : items.length + ' items';
  if (!await confirmAction('Delete ' + what + '?', 'Delete ' + what + (dirs ? ' and everything in ' + (items.length === 1 ? 'it' : 'the folders') : '') +
    '? This cannot be undone.', 'Delete', true)) return;
  act(items.length === 1 ? 'Deleted.' : 'Deleted ' + items.length + ' items.', async () => { for (const e of items) await davRequest('DELETE', e.segs); });
}

export async function newFolder() {
  const n = await askText('New folder', 'Name of the new folder', '', 'Create', validName);
  if (n === null) return;
  act('Folder created.', () => davRequest('MKCOL', S.folder.concat(n)));
}

// ---- uploads -------------------------------------------------------------------------------------------
const uploader = new Uploader(folderURL, ROOT, (dest) => { if (dest.join('/') === S.folder.join('/') && !S.search) hooks.load(); }, say);

export function pickFiles(input, useRelative) {
  const items = Array.from(input.files).map((file) => ({ file, rel: useRelative && file.webkitRelativePath ? file.webkitRelativePath : file.name }));
  input.value = '';
  uploader.enqueue(items, S.folder);
}

export async function dropped(dataTransfer) {
  const items = [];
  const entriesIn = Array.from(dataTransfer.items || []).map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  if (!entriesIn.length) Array.from(dataTransfer.files).forEach((file) => items.push({ file, rel: file.name }));
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
  uploader.enqueue(items, S.folder);
}
