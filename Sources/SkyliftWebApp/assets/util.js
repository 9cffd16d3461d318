// Small helpers shared by the app's modules: elements, URLs, sizes, dates, human-readable types, icons.
export const $ = (id) => document.getElementById(id);
export const enc = (s) => encodeURIComponent(s);
export const absolute = (rel) => new URL(rel, location.href).href;

/** An element with a class and text; `attrs` set as attributes (never HTML). */
export function el(tag, cls, text, attrs) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

export function button(label, title, action, cls) {
  const b = el('button', cls, label, { type: 'button' });
  if (title) b.setAttribute('aria-label', title);
  b.addEventListener('click', action);
  return b;
}

export function humanSize(n) {
  if (n < 1024) return n + ' B';
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n, i = -1;
  do { v /= 1024; i++; } while (v >= 1024 && i < units.length - 1);
  return v.toFixed(v < 10 ? 1 : 0) + ' ' + units[i];
}

export function humanDuration(seconds) {
  if (!isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return Math.ceil(seconds) + ' s';
  if (seconds < 3600) return Math.floor(seconds / 60) + ' min ' + Math.round(seconds % 60) + ' s';
  return Math.floor(seconds / 3600) + ' h ' + Math.round((seconds % 3600) / 60) + ' min';
}

const two = (n) => String(n).padStart(2, '0');
/** `2026-05-01 10:00` in local time, from a Date. */
export function stamp(d) {
  return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + ' ' + two(d.getHours()) + ':' + two(d.getMinutes());
}

// Names people know, for the types a folder usually holds; anything else is named from its MIME subtype.
const TYPE_NAMES = {
  'image/jpeg': 'JPEG image', 'image/png': 'PNG image', 'image/gif': 'GIF image', 'image/webp': 'WebP image',
  'image/heic': 'HEIC image', 'image/heif': 'HEIF image', 'image/tiff': 'TIFF image', 'image/svg+xml': 'SVG image',
  'image/avif': 'AVIF image', 'image/bmp': 'BMP image', 'video/mp4': 'MP4 video', 'video/quicktime': 'QuickTime video',
  'video/webm': 'WebM video', 'video/x-matroska': 'Matroska video', 'video/x-msvideo': 'AVI video', 'audio/mpeg': 'MP3 audio',
  'audio/mp4': 'AAC audio', 'audio/ogg': 'Ogg audio', 'audio/flac': 'FLAC audio', 'audio/wav': 'WAV audio', 'audio/x-wav': 'WAV audio',
  'text/plain': 'Plain text', 'text/markdown': 'Markdown', 'text/html': 'HTML page', 'text/css': 'CSS', 'text/csv': 'CSV table',
  'text/javascript': 'JavaScript', 'application/json': 'JSON', 'application/pdf': 'PDF document', 'application/zip': 'ZIP archive',
  'application/gzip': 'Gzip archive', 'application/x-tar': 'Tar archive', 'application/xml': 'XML', 'text/xml': 'XML',
  'application/octet-stream': 'Binary file', 'application/msword': 'Word document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel sheet',
  'application/vnd.oasis.opendocument.text': 'OpenDocument text', folder: 'Folder',
};
const KIND_WORDS = { image: 'image', video: 'video', audio: 'audio', text: 'text', font: 'font' };

export function typeName(type, name) {
  const t = (type || '').split(';')[0].trim().toLowerCase();
  if (TYPE_NAMES[t]) return TYPE_NAMES[t];
  if (isMarkdown(t, name)) return 'Markdown';
  const [major, minor] = t.split('/');
  if (!minor) return 'File';
  const sub = minor.replace(/^(x-|vnd\.)/, '').split(/[.+]/)[0].toUpperCase();
  return sub + ' ' + (KIND_WORDS[major] || 'file');
}

export const isMarkdown = (type, name) => type === 'text/markdown' || /\.(md|markdown)$/i.test(name || '');
export const isMedia = (type) => /^(image|video|audio)\//.test(type || '');
export const hasThumb = (type) => /^(image|video)\//.test(type || '');
export const isText = (type, name) => /^text\//.test(type || '') || /^application\/(json|xml|javascript)/.test(type || '') ||
  /\.(txt|md|markdown|log|csv|json|ya?ml|toml|ini|conf|sh|py|swift|js|css|c|h)$/i.test(name || '');
export const isPDF = (type, name) => type === 'application/pdf' || /\.pdf$/i.test(name || '');

// Icons are drawn as SVG, not emoji: a phone or a server without an emoji font still shows them.
const SHAPES = {
  folder: 'M2 5a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1z',
  video: 'M3 5h13v14H3zM16 10l5-3v10l-5-3z',
  audio: 'M9 17a3 3 0 1 1-2-2.8V4l11-2v12a3 3 0 1 1-2-2.8V5.4L9 6.7z',
  image: 'M3 4h18v16H3zM3 16l5-5 4 4 3-3 6 6M15 9a1.5 1.5 0 1 0 0-.01',
  file: 'M5 2h9l5 5v15H5zM14 2v5h5',
};

export function shape(e) {
  const kind = e.dir ? 'folder' : (e.type || '').startsWith('video/') ? 'video' : (e.type || '').startsWith('audio/') ? 'audio'
    : (e.type || '').startsWith('image/') ? 'image' : 'file';
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'shape ' + kind);
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', SHAPES[kind]);
  svg.append(path);
  return svg;
}
