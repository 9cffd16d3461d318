// The grid of thumbnails and the timeline: windowed rendering, so only the tiles on screen (and a few rows
// around them) exist in the page and load their thumbnails; 10,000 photos cost as much as a screenful.
import { el } from './util.js';

const HEADER = 44;   // height of a day or month heading in the timeline
const OVERSCAN = 2;  // rows kept above and below the visible ones

export class Gallery {
  /** `scroller` scrolls; `spacer` gets the full height; `layer` holds the rendered lines. `tile(item, index)`
   *  makes one tile; `nearEnd()` is called when the last rows come into view (to load the next page). */
  constructor(scroller, spacer, layer, tile, nearEnd) {
    Object.assign(this, { scroller, spacer, layer, tile, nearEnd });
    this.items = [];
    this.group = null;
    this.lines = [];
    this.key = '';
    this.width = 0;
    this.queued = false;
    scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    if (window.ResizeObserver) new ResizeObserver(() => this.schedule(true)).observe(scroller);
  }

  /** Shows `items`, grouped under headings by `group(item)` (null: no headings). */
  setItems(items, group) {
    this.items = items;
    this.group = group;
    this.layout();
    this.render(true);
  }

  schedule(relayout) {
    if (relayout) this.relayout = true;
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => {
      this.queued = false;
      if (this.relayout) { this.relayout = false; this.layout(); this.render(true); } else this.render(false);
    });
  }

  metrics() {
    const css = getComputedStyle(document.documentElement);
    const tile = parseInt(css.getPropertyValue('--tile'), 10) || 180;
    const gap = 8;
    const width = this.scroller.clientWidth || 800;
    const cols = Math.max(1, Math.floor((width - 16 + gap) / (tile + gap)));
    const size = Math.floor((width - 16 - gap * (cols - 1)) / cols);
    return { cols, size, gap, width };
  }

  /** Lines: headings and rows of tiles, each with its top; recomputed when the items or the width change. */
  layout() {
    const m = this.metrics();
    this.m = m;
    this.lines = [];
    let top = 8, label = null, row = null;
    this.items.forEach((item, i) => {
      const g = this.group ? this.group(item) : null;
      if (g !== null && g !== label) {
        label = g;
        row = null;
        this.lines.push({ heading: g, top, height: HEADER });
        top += HEADER;
      }
      if (!row || row.items.length === m.cols) {
        row = { items: [], top, height: m.size + m.gap };
        this.lines.push(row);
        top += row.height;
      }
      row.items.push(i);
    });
    this.height = top + 8;
    this.spacer.style.height = this.height + 'px';
  }

  /** The first line whose bottom is below `y`. */
  find(y) {
    let lo = 0, hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const l = this.lines[mid];
      if (l.top + l.height <= y) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  render(force) {
    // Nothing yet (a page of the timeline may come back empty with more to come): ask for the next page.
    if (!this.lines.length) { this.layer.textContent = ''; this.key = ''; if (this.nearEnd) this.nearEnd(); return; }
    const top = this.scroller.scrollTop, view = this.scroller.clientHeight || 600;
    const first = Math.max(0, this.find(top) - OVERSCAN);
    const last = Math.min(this.lines.length, this.find(top + view) + 1 + OVERSCAN);
    const key = first + ':' + last;
    if (!force && key === this.key) return;
    this.key = key;
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) frag.append(this.line(this.lines[i]));
    this.layer.textContent = '';
    this.layer.append(frag);
    if (last >= this.lines.length - OVERSCAN && this.nearEnd) this.nearEnd();
  }

  line(l) {
    if (l.heading !== undefined) {
      const h = el('h3', 'group', l.heading);
      h.style.top = l.top + 'px';
      return h;
    }
    const row = el('div', 'tiles', null, { role: 'row' });
    row.style.top = l.top + 'px';
    row.style.gridTemplateColumns = 'repeat(' + this.m.cols + ', ' + this.m.size + 'px)';
    row.style.height = this.m.size + 'px';
    for (const i of l.items) row.append(this.tile(this.items[i], i));
    return row;
  }

  /** Scrolls so the item at `index` is in view. */
  reveal(index) {
    const line = this.lines.find((l) => l.items && l.items.includes(index));
    if (!line) return;
    const s = this.scroller;
    if (line.top < s.scrollTop) s.scrollTop = line.top;
    else if (line.top + line.height > s.scrollTop + s.clientHeight) s.scrollTop = line.top + line.height - s.clientHeight;
  }
}

/** Day or month headings for the timeline, in local time. */
export function groupLabel(iso, by) {
  const d = new Date(iso);
  if (isNaN(d)) return 'Unknown date';
  return by === 'month' ? d.toLocaleDateString(undefined, { year: 'numeric', month: 'long' })
    : d.toLocaleDateString(undefined, { weekday: 'short', year: 'numeric', month: 'long', day: 'numeric' });
}
