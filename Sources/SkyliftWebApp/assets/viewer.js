// The viewer: images, video, audio, text, Markdown and PDF, walking the items of the current view in its order.
import { $, el, isMedia, isText, isMarkdown, isPDF } from './util.js';
import { fileURL, keyOf, shown } from './state.js';
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
  if (isMedia(e.type)) {
    let m;
    if (e.type.startsWith('image/')) m = el('img', null, null, { alt: e.name });
    else { m = el(e.type.startsWith('video/') ? 'video' : 'audio'); m.controls = true; m.autoplay = true; m.preload = 'metadata'; }
    m.src = src;
    m.id = 'media';
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
