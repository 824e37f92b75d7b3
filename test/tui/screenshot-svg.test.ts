// The README picture's converter: SGR colours and styles become SVG fills and attributes, wide
// characters take two cells, text is XML-escaped, and nothing of the escapes leaks into the text.
import { describe, expect, it } from 'vitest';
import { ansiToSvg, PALETTE, parseAnsi } from '../../scripts/tui-screenshot-svg.ts';

describe('parseAnsi', () => {
  it('reads SGR colours (16, 256, truecolor), bold/dim/inverse and resets', () => {
    const [row] = parseAnsi(
      '\u001b[1;36mA\u001b[0m\u001b[38;5;196mB\u001b[48;2;1;2;3mC\u001b[7;2mD\u001b[22;27;39;49mE',
      5,
      1,
    );
    expect(row!.map((c) => c.ch).join('')).toBe('ABCDE');
    expect(row![0]!.style).toMatchObject({ fg: PALETTE[6], bold: true });
    expect(row![1]!.style).toMatchObject({ fg: '#ff0000', bold: false });
    expect(row![2]!.style).toMatchObject({ fg: '#ff0000', bg: '#010203' });
    expect(row![3]!.style).toMatchObject({ inverse: true, dim: true });
    expect(row![4]!.style).toMatchObject({ fg: null, bg: null, inverse: false, dim: false });
  });

  it('pads and cuts to the screen size; a wide character takes two cells', () => {
    const grid = parseAnsi('漢x\nthis line is too long', 6, 3);
    expect(grid).toHaveLength(3);
    expect(grid.every((r) => r.length === 6)).toBe(true);
    expect(grid[0]!.slice(0, 3).map((c) => c.width)).toEqual([2, 0, 1]);
    expect(grid[1]!.map((c) => c.ch).join('')).toBe('this l');
  });
});

describe('ansiToSvg', () => {
  it('makes an SVG of the screen with escaped text and no control bytes', () => {
    const svg = ansiToSvg('\u001b[31m<a & b>\u001b[0m "q" \u001b]0;title\u0007ok', {
      columns: 20,
      rows: 2,
      title: 'lqsim tui x',
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain(`fill="${PALETTE[1]}"`);
    expect(svg).toContain('&#60;a &#38; b&#62;');
    expect(svg).toContain('ok');
    expect(svg).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(svg).not.toContain('title\u0007');
  });
});
