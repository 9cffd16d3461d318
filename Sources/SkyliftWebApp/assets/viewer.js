// The viewer: images, video, audio, text, Markdown and PDF, walking the items of the current view in its order.
import { $, el, isMedia, isText, isMarkdown, isPDF } from './util.js';
import { fileURL, keyOf, shown, thumbURL } from './state.js';
import { textPreview, pdfPreview } from './preview.js';

let viewing = -1;
let returnFocus = null;
const viewable = () => shown().filter((e) => !e.dir && (isMedia(e.type) || isText(e.type, e.name) || isPDF(e.type, e.name)));

export function openViewer(e) {
  const list = viewable();
  viewing = list.findIndex((x) => keyOf(x) === keyOf(e));
  if (viewing < 0) return;
  returnFocus = document.activeElement;
  $('viewer').hidden = false;
  show();
  $('close').focus();
}

async function show() {
  const list = viewable();
  const e = list[viewing];
  const stage = $('stage');
  stage.textContent = '';
  $('viewer-name').textContent = e.name + ' (' + (viewing + 1) + ' of ' + list.length + ')';
  $('viewer-open').href = fileURL(e.segs);
  $('prev').disabled = viewing === 0;
  $('next').disabled = viewing === list.length - 1;
  const src = fileURL(e.segs);
  if (e.type.startsWith('image/')) {
    stage.append(picture(e, src));
  } else if (isMedia(e.type)) {
    const m = el(e.type.startsWith('video/') ? 'video' : 'audio', null, null, { id: 'media' });
    m.controls = true;
    m.autoplay = true;
    m.preload = 'metadata';
    m.src = src;
    stage.append(m);
  } else if (isPDF(e.type, e.name)) {
    stage.append(pdfPreview(src, e.name));
  } else {
    const at = viewing;
    try {
      const node = await textPreview(src, isMarkdown(e.type, e.name));
      if (at === viewing) stage.append(node);
    } catch (err) { if (at === viewing) stage.append(el('p', 'error', err.message)); }
  }
}

// Browsers draw these themselves; other pictures (HEIC, TIFF, …) are shown as the server's 512 px thumbnail.
const DRAWN = /^image\/(jpeg|png|gif|webp|avif|bmp|svg\+xml|x-icon)$/;

/** The picture: its 512 px thumbnail at once (small, usually cached), replaced by the file when that has
 *  loaded; a format the browser cannot draw stays the thumbnail; without thumbnails, the file. */
function picture(e, src) {
  const img = el('img', null, null, { alt: e.name, id: 'media' });
  const drawn = DRAWN.test(e.type);
  img.addEventListener('error', () => { if (img.src !== absoluteURL(src)) img.src = src; }, { once: true });
  img.src = thumbURL(e, 512);
  if (drawn) {
    const full = new Image();
    full.addEventListener('load', () => { if (img.isConnected) img.src = src; });
    full.src = src;
  }
  return img;
}

const absoluteURL = (rel) => new URL(rel, location.href).href;

export function step(d) {
  const n = viewing + d;
  if (n >= 0 && n < viewable().length) { viewing = n; show(); }
}

export function closeViewer() {
  $('stage').textContent = '';
  $('viewer').hidden = true;
  viewing = -1;
  if (returnFocus) returnFocus.focus();
}
