// ANSI → SVG for the README picture: turns what `tmux capture-pane -e -p` printed (text with SGR
// colour sequences) into an SVG of a terminal window, cell by cell. Pure and dependency-free;
// scripts/tui-screenshot.ts drives the real TUI and calls it.
import { charWidth } from '../src/output/wrap.ts';

export interface Cell {
  ch: string;
  /** 2 for a wide character; the cell after it is a 0-width continuation. */
  width: 0 | 1 | 2;
  style: CellStyle;
}

export interface CellStyle {
  fg: string | null;
  bg: string | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

const PLAIN: CellStyle = {
  fg: null,
  bg: null,
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
};

/** VS Code's dark terminal palette: 8 colours, then their bright versions. */
export const PALETTE = [
  '#000000',
  '#cd3131',
  '#0dbc79',
  '#e5e510',
  '#2472c8',
  '#bc3fbc',
  '#11a8cd',
  '#e5e5e5',
  '#767676',
  '#f14c4c',
  '#23d18b',
  '#f5f543',
  '#3b8eea',
  '#d670d6',
  '#29b8db',
  '#ffffff',
];
const FG = '#cccccc';
const BG = '#1e1e1e';

function xterm256(n: number): string {
  if (n < 16) return PALETTE[n]!;
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return rgb(v, v, v);
  }
  const i = n - 16;
  const level = (c: number): number => (c === 0 ? 0 : 55 + c * 40);
  return rgb(level(Math.floor(i / 36)), level(Math.floor(i / 6) % 6), level(i % 6));
}

function rgb(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => Math.max(0, Math.min(255, c)).toString(16).padStart(2, '0')).join('')}`;
}

/** Applies one SGR parameter list to a style. */
function applySgr(style: CellStyle, params: number[]): CellStyle {
  const s = { ...style };
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p === 0) Object.assign(s, PLAIN);
    else if (p === 1) s.bold = true;
    else if (p === 2) s.dim = true;
    else if (p === 3) s.italic = true;
    else if (p === 4) s.underline = true;
    else if (p === 7) s.inverse = true;
    else if (p === 22) s.bold = s.dim = false;
    else if (p === 23) s.italic = false;
    else if (p === 24) s.underline = false;
    else if (p === 27) s.inverse = false;
    else if (p >= 30 && p <= 37) s.fg = PALETTE[p - 30]!;
    else if (p >= 90 && p <= 97) s.fg = PALETTE[p - 90 + 8]!;
    else if (p === 39) s.fg = null;
    else if (p >= 40 && p <= 47) s.bg = PALETTE[p - 40]!;
    else if (p >= 100 && p <= 107) s.bg = PALETTE[p - 100 + 8]!;
    else if (p === 49) s.bg = null;
    else if (p === 38 || p === 48) {
      let colour: string | null = null;
      if (params[i + 1] === 5) {
        colour = xterm256(params[i + 2] ?? 0);
        i += 2;
      } else if (params[i + 1] === 2) {
        colour = rgb(params[i + 2] ?? 0, params[i + 3] ?? 0, params[i + 4] ?? 0);
        i += 4;
      }
      if (p === 38) s.fg = colour;
      else s.bg = colour;
    }
  }
  return s;
}

/** The screen as rows of cells, `columns` wide, `rows` high (padded or cut). */
export function parseAnsi(text: string, columns: number, rows: number): Cell[][] {
  const grid: Cell[][] = [];
  let style = PLAIN;
  for (const raw of text.replace(/\r/g, '').split('\n').slice(0, rows)) {
    const row: Cell[] = [];
    for (let i = 0; i < raw.length;) {
      if (raw[i] === '\x1b') {
        const csi = /^\x1b\[([0-9;:?]*)([@-~])/.exec(raw.slice(i));
        if (csi !== null) {
          if (csi[2] === 'm')
            style = applySgr(
              style,
              (csi[1] === '' ? '0' : csi[1]!).split(/[;:]/).map((n) => Number(n) || 0),
            );
          i += csi[0].length;
          continue;
        }
        const osc = /^\x1b\][^\x07\x1b]*(\x07|\x1b\\)/.exec(raw.slice(i));
        i += osc !== null ? osc[0].length : 2;
        continue;
      }
      const ch = String.fromCodePoint(raw.codePointAt(i)!);
      i += ch.length;
      if (ch < ' ') continue;
      const w = charWidth(ch);
      if (w === 0) continue;
      row.push({ ch, width: w, style });
      if (w === 2) row.push({ ch: '', width: 0, style });
    }
    while (row.length < columns) row.push({ ch: ' ', width: 1, style: PLAIN });
    grid.push(row.slice(0, columns));
  }
  while (grid.length < rows)
    grid.push(Array.from({ length: columns }, () => ({ ch: ' ', width: 1 as const, style: PLAIN })));
  return grid;
}

export interface SvgOptions {
  columns: number;
  rows: number;
  title?: string;
  fontSize?: number;
}

function xml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.codePointAt(0)};`);
}

function colours(s: CellStyle): { fg: string; bg: string | null } {
  const fg = s.fg ?? FG;
  const bg = s.bg;
  return s.inverse ? { fg: bg ?? BG, bg: fg } : { fg, bg };
}

const sameText = (a: CellStyle, b: CellStyle): boolean =>
  a.fg === b.fg &&
  a.bg === b.bg &&
  a.bold === b.bold &&
  a.dim === b.dim &&
  a.italic === b.italic &&
  a.underline === b.underline &&
  a.inverse === b.inverse;

/** An SVG picture of the screen in a window frame; every cell is placed on a fixed grid. */
export function ansiToSvg(text: string, o: SvgOptions): string {
  const size = o.fontSize ?? 14;
  const cw = Math.round(size * 0.6021 * 100) / 100; // DejaVu Sans Mono's advance
  const lh = Math.round(size * 1.22);
  const pad = 14;
  const bar = 30;
  const width = Math.ceil(o.columns * cw + pad * 2);
  const height = Math.ceil(o.rows * lh + pad * 2 + bar);
  const grid = parseAnsi(text, o.columns, o.rows);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" rx="8" fill="${BG}"/>`,
    `<rect width="${width}" height="${bar}" rx="8" fill="#2d2d2d"/><rect y="${bar - 8}" width="${width}" height="8" fill="#2d2d2d"/>`,
    ...['#ff5f56', '#ffbd2e', '#27c93f'].map(
      (c, i) => `<circle cx="${pad + 6 + i * 20}" cy="${bar / 2}" r="6" fill="${c}"/>`,
    ),
    o.title === undefined
      ? ''
      : `<text x="${width / 2}" y="${bar / 2 + 4}" fill="#9d9d9d" font-family="sans-serif" font-size="12" text-anchor="middle">${xml(o.title)}</text>`,
    `<g transform="translate(${pad} ${pad + bar})" font-family="'DejaVu Sans Mono','Menlo','Consolas','Liberation Mono',monospace" font-size="${size}" style="white-space:pre">`,
  ];
  grid.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      const style = row[x]!.style;
      let end = x;
      while (end < row.length && sameText(row[end]!.style, style)) end++;
      const { fg, bg } = colours(style);
      const top = y * lh;
      if (bg !== null)
        out.push(
          `<rect x="${(x * cw).toFixed(2)}" y="${top}" width="${((end - x) * cw).toFixed(2)}" height="${lh}" fill="${bg}"/>`,
        );
      const cells = row.slice(x, end);
      const content = cells.map((c) => c.ch).join('');
      if (content.trim() !== '') {
        const attrs = [
          `x="${(x * cw).toFixed(2)}"`,
          `y="${top + Math.round(lh * 0.78)}"`,
          `fill="${fg}"`,
          `textLength="${((end - x) * cw).toFixed(2)}"`,
          style.bold ? 'font-weight="bold"' : '',
          style.italic ? 'font-style="italic"' : '',
          style.dim ? 'opacity="0.6"' : '',
          style.underline ? 'text-decoration="underline"' : '',
        ].filter((a) => a !== '');
        out.push(`<text ${attrs.join(' ')}>${xml(content)}</text>`);
      }
      x = end;
    }
  });
  out.push('</g>', '</svg>', '');
  return out.filter((l) => l !== '').join('\n');
}
