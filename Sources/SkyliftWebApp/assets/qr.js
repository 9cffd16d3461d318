// A QR code encoder for share links: byte mode, error correction level M, versions 1 to 10 (up to 213
// bytes), after ISO/IEC 18004. Written for this app; it draws into SVG elements, never HTML text.

// Per version (index 1..10), error correction level M: EC codewords per block and the blocks' data sizes.
const BLOCKS_M = [null,
  [10, [16]], [16, [28]], [26, [44]], [18, [32, 32]], [24, [43, 43]], [16, [27, 27, 27, 27]], [18, [31, 31, 31, 31]],
  [22, [38, 38, 39, 39]], [22, [36, 36, 36, 37, 37]], [26, [43, 43, 43, 43, 44]]];
const ALIGN = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];
const FORMAT_M = 0; // the two level bits of M in the format information

// GF(256) over x^8 + x^4 + x^3 + x^2 + 1, as the standard's Reed-Solomon code uses.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) { EXP[i] = x; LOG[x] = i; x <<= 1; if (x & 0x100) x ^= 0x11d; }
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

function generator(degree) {
  let g = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(g.length + 1).fill(0);
    g.forEach((c, j) => { next[j] ^= c; next[j + 1] ^= mul(c, EXP[i]); });
    g = next;
  }
  return g;
}

function remainder(data, degree) {
  const g = generator(degree);
  const r = new Array(degree).fill(0);
  for (const b of data) {
    const factor = b ^ r.shift();
    r.push(0);
    for (let i = 0; i < degree; i++) r[i] ^= mul(g[i + 1], factor);
  }
  return r;
}

/** The codewords of `bytes` for `version`: data in byte mode, padded, split in blocks, interleaved with EC. */
function codewords(bytes, version) {
  const [ec, blocks] = BLOCKS_M[version];
  const capacity = blocks.reduce((a, b) => a + b, 0);
  const bits = [];
  const put = (value, n) => { for (let i = n - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(4, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  bytes.forEach((b) => put(b, 8));
  put(0, Math.min(4, capacity * 8 - bits.length));
  while (bits.length % 8) bits.push(0);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; data.length < capacity; pad ^= 0xec ^ 0x11) data.push(pad);
  const split = [];
  let at = 0;
  for (const n of blocks) { split.push(data.slice(at, at + n)); at += n; }
  const out = [];
  const longest = Math.max(...blocks);
  for (let i = 0; i < longest; i++) split.forEach((b) => { if (i < b.length) out.push(b[i]); });
  const ecs = split.map((b) => remainder(b, ec));
  for (let i = 0; i < ec; i++) ecs.forEach((b) => out.push(b[i]));
  return out;
}

function bch(value, poly, bitsOfPoly) {
  let r = value << (bitsOfPoly - 1);
  for (let i = 31 - Math.clz32(r); i >= bitsOfPoly - 1; i--) if (r & (1 << i)) r ^= poly << (i - bitsOfPoly + 1);
  return (value << (bitsOfPoly - 1)) | r;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0, (x, y) => y % 2 === 0, (x) => x % 3 === 0, (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0, (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0, (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

class Grid {
  constructor(version) {
    this.size = version * 4 + 17;
    this.dark = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    this.fixed = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
  }
  set(x, y, dark) { this.dark[y][x] = dark; this.fixed[y][x] = true; }
}

function drawFunctionPatterns(g, version) {
  const n = g.size;
  for (let i = 0; i < n; i++) { g.set(6, i, i % 2 === 0); g.set(i, 6, i % 2 === 0); }
  for (const [cx, cy] of [[3, 3], [n - 4, 3], [3, n - 4]]) {
    for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) {
      const x = cx + dx, y = cy + dy, d = Math.max(Math.abs(dx), Math.abs(dy));
      if (x >= 0 && y >= 0 && x < n && y < n) g.set(x, y, d !== 2 && d !== 4);
    }
  }
  const pos = ALIGN[version];
  pos.forEach((ax, i) => pos.forEach((ay, j) => {
    const last = pos.length - 1;
    if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
    for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) g.set(ax + dx, ay + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
  }));
  drawFormat(g, 0); // reserves the format areas; drawn again with the chosen mask
  if (version >= 7) {
    const bits = bch(version, 0x1f25, 13);
    for (let i = 0; i < 18; i++) {
      const a = n - 11 + (i % 3), b = Math.floor(i / 3), dark = ((bits >>> i) & 1) === 1;
      g.set(a, b, dark); g.set(b, a, dark);
    }
  }
}

function drawFormat(g, mask) {
  const n = g.size;
  const bits = bch((FORMAT_M << 3) | mask, 0x537, 11) ^ 0x5412;
  const bit = (i) => ((bits >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) g.set(8, i, bit(i));
  g.set(8, 7, bit(6)); g.set(8, 8, bit(7)); g.set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) g.set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) g.set(n - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) g.set(8, n - 15 + i, bit(i));
  g.set(8, n - 8, true);
}

function placeData(g, words) {
  const n = g.size;
  let i = 0;
  for (let right = n - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < n; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j, upward = ((right + 1) & 2) === 0, y = upward ? n - 1 - vert : vert;
        if (g.fixed[y][x]) continue;
        if (i < words.length * 8) g.dark[y][x] = ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
        i++;
      }
    }
  }
}

/** A rough penalty after the standard's rules 1, 2 and 4: any mask decodes; the lowest scans best. */
function penalty(m) {
  const n = m.length;
  let score = 0, dark = 0;
  for (let a = 0; a < n; a++) {
    let runRow = 1, runCol = 1;
    for (let b = 0; b < n; b++) {
      if (m[a][b]) dark++;
      if (b > 0) {
        runRow = m[a][b] === m[a][b - 1] ? runRow + 1 : 1;
        runCol = m[b][a] === m[b - 1][a] ? runCol + 1 : 1;
        if (runRow === 5) score += 3; else if (runRow > 5) score++;
        if (runCol === 5) score += 3; else if (runCol > 5) score++;
      }
      if (a > 0 && b > 0 && m[a][b] === m[a - 1][b] && m[a][b] === m[a][b - 1] && m[a][b] === m[a - 1][b - 1]) score += 3;
    }
  }
  return score + Math.floor(Math.abs(dark * 20 - n * n * 10) / (n * n)) * 10;
}

/** The modules of a QR code for `text` (UTF-8): rows of booleans, true for dark. Throws when it is too long. */
export function qrMatrix(text) {
  const bytes = Array.from(new TextEncoder().encode(text));
  const version = BLOCKS_M.findIndex((v, i) => v && (i < 10 ? 2 : 3) + bytes.length <= v[1].reduce((a, b) => a + b, 0));
  if (version < 1) throw new Error('too long for a QR code of version 10');
  const words = codewords(bytes, version);
  let best = null;
  for (let mask = 0; mask < 8; mask++) {
    const g = new Grid(version);
    drawFunctionPatterns(g, version);
    placeData(g, words);
    for (let y = 0; y < g.size; y++) for (let x = 0; x < g.size; x++) if (!g.fixed[y][x] && MASKS[mask](x, y)) g.dark[y][x] = !g.dark[y][x];
    drawFormat(g, mask);
    const score = penalty(g.dark);
    if (!best || score < best.score) best = { score, dark: g.dark };
  }
  return best.dark;
}

/** An SVG drawing of the QR code for `text`, with a four-module quiet zone, `pixels` wide. */
export function qrSVG(text, pixels) {
  const m = qrMatrix(text);
  const n = m.length + 8;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 ' + n + ' ' + n);
  svg.setAttribute('width', String(pixels));
  svg.setAttribute('height', String(pixels));
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('role', 'img');
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('width', String(n)); bg.setAttribute('height', String(n)); bg.setAttribute('fill', '#fff');
  const path = document.createElementNS(ns, 'path');
  let d = '';
  m.forEach((row, y) => row.forEach((on, x) => { if (on) d += 'M' + (x + 4) + ' ' + (y + 4) + 'h1v1h-1z'; }));
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(bg, path);
  return svg;
}
