// Previews of text, Markdown and PDF files in the viewer. File content only ever becomes text nodes or
// elements built here (never innerHTML), so a file cannot run script or load anything in the app's page.
import { el } from './util.js';

/** At most this much of a text file is shown; the rest is left for the download. */
export const TEXT_LIMIT = 1 << 20;

/** A <pre> or rendered Markdown of the first TEXT_LIMIT bytes of `url`. */
export async function textPreview(url, markdown) {
  const r = await fetch(url, { headers: { Range: 'bytes=0-' + (TEXT_LIMIT - 1) }, cache: 'no-store' });
  if (!r.ok) throw new Error('cannot read the file (' + r.status + ')');
  const buffer = await r.arrayBuffer();
  const text = new TextDecoder('utf-8').decode(buffer);
  const box = el('div', markdown ? 'preview markdown' : 'preview text', null, { id: 'preview', tabindex: '0' });
  if (markdown) box.append(...renderMarkdown(text)); else box.append(el('pre', null, text));
  const total = parseInt((r.headers.get('Content-Range') || '').split('/')[1], 10);
  if (r.status === 206 && total > TEXT_LIMIT) box.append(el('p', 'note', 'Only the first ' + (TEXT_LIMIT >> 20) + ' MB is shown.'));
  return box;
}

/** The browser's own PDF viewer in a frame; the server sends the file with CSP sandbox. */
export function pdfPreview(url, name) {
  const frame = el('iframe', 'preview pdf', null, { id: 'preview', src: url, title: 'PDF ' + name });
  return frame;
}

// ---- Markdown: the common subset (headings, paragraphs, lists, quotes, code, rules, emphasis, links) -----
const SAFE_LINK = /^(https?:|mailto:|#|\.{0,2}\/|[^:]*$)/i;

function inline(text) {
  const out = [];
  const pattern = /(`[^`]+`)|(\*\*[^*]+\*\*|__[^_]+__)|(\*[^*\s][^*]*\*|_[^_\s][^_]*_)|(\[[^\]]+\]\([^)\s]+\))/;
  let rest = text;
  while (rest) {
    const m = pattern.exec(rest);
    if (!m) { out.push(document.createTextNode(rest)); break; }
    if (m.index) out.push(document.createTextNode(rest.slice(0, m.index)));
    const t = m[0];
    if (m[1]) out.push(el('code', null, t.slice(1, -1)));
    else if (m[2]) { const b = el('strong'); b.append(...inline(t.slice(2, -2))); out.push(b); }
    else if (m[3]) { const i = el('em'); i.append(...inline(t.slice(1, -1))); out.push(i); }
    else {
      const split = t.indexOf('](');
      const label = t.slice(1, split), href = t.slice(split + 2, -1);
      if (SAFE_LINK.test(href)) {
        const a = el('a', null, null, { href, rel: 'noopener noreferrer', target: '_blank' });
        a.append(...inline(label));
        out.push(a);
      } else out.push(document.createTextNode(label));
    }
    rest = rest.slice(m.index + t.length);
  }
  return out;
}

function withInline(tag, text) { const e = el(tag); e.append(...inline(text)); return e; }

/** DOM nodes for the Markdown `source`. */
export function renderMarkdown(source) {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const nodes = [];
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) { nodes.push(withInline('p', para.join(' '))); para = []; }
    if (list) { nodes.push(list); list = null; }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m;
    if (/^```/.test(line)) {
      flush();
      const code = [];
      while (++i < lines.length && !/^```/.test(lines[i])) code.push(lines[i]);
      const pre = el('pre');
      pre.append(el('code', null, code.join('\n')));
      nodes.push(pre);
    } else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      flush();
      nodes.push(withInline('h' + m[1].length, m[2].replace(/\s+#+\s*$/, '')));
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      nodes.push(el('hr'));
    } else if ((m = /^>\s?(.*)$/.exec(line))) {
      flush();
      const quote = [m[1]];
      while (i + 1 < lines.length && /^>/.test(lines[i + 1])) quote.push(lines[++i].replace(/^>\s?/, ''));
      const q = el('blockquote');
      q.append(...renderMarkdown(quote.join('\n')));
      nodes.push(q);
    } else if ((m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line))) {
      if (para.length) { nodes.push(withInline('p', para.join(' '))); para = []; }
      const tag = /\d/.test(m[1]) ? 'ol' : 'ul';
      if (!list || list.tagName.toLowerCase() !== tag) { if (list) nodes.push(list); list = el(tag); }
      list.append(withInline('li', m[2]));
    } else if (!line.trim()) {
      flush();
    } else {
      if (list) { nodes.push(list); list = null; }
      para.push(line.trim());
    }
  }
  flush();
  return nodes;
}
