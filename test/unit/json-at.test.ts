// jsonAt writes a value pretty-printed as it sits `depth` levels into renderJson's document, with
// every character a terminal would act on as a \uXXXX escape. Checked against the definition
// written out plainly: JSON.stringify, the unsafe characters escaped, the lines indented after.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonAt } from '../../src/output/json.ts';

/** The definition, slowly: every unsafe character but the pretty-printing's newline escaped, then indented. */
function plainly(value: unknown, depth: number): string {
  const unsafe =
    /[\u{0}-\u{1f}\u{7f}-\u{9f}\u{ad}\u{61c}\u{115f}\u{1160}\u{180e}\u{200b}\u{200e}\u{200f}\u{2028}-\u{202e}\u{2060}-\u{2064}\u{2066}-\u{206f}\u{3164}\u{feff}\u{fff9}-\u{fffb}\u{ffa0}\u{d800}-\u{dfff}\u{e0000}-\u{e007f}]/gu;
  const text = JSON.stringify(value, null, 2).replace(unsafe, (m) =>
    m === '\n'
      ? m
      : Array.from({ length: m.length }, (_, i) => `\\u${m.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
  return text.replaceAll('\n', `\n${'  '.repeat(depth)}`);
}

describe('jsonAt', () => {
  it('escapes what a terminal acts on, at any depth', () => {
    const value = { del: 'a\x7fb', c1: '\u0085', bidi: 'x\u202ey', tag: '\u{e0041}', fine: 'é ✓ 漢字 😀', nl: 'a\nb' };
    for (const depth of [0, 1, 2, 3, 5]) {
      const out = jsonAt(value, depth);
      expect(out).toBe(plainly(value, depth));
      expect(out).toContain('"del": "a\\u007fb"');
      expect(out).toContain('"bidi": "x\\u202ey"');
      expect(out).toContain('"fine": "é ✓ 漢字 😀"');
    }
  });

  it('escapes DEL in text that is otherwise ASCII', () => {
    for (const depth of [0, 2]) expect(jsonAt({ del: 'a\x7fb' }, depth)).toBe(plainly({ del: 'a\x7fb' }, depth));
    expect(jsonAt({ del: 'a\x7fb' }, 0)).toContain('"a\\u007fb"');
  });

  it('is the plain definition for any JSON value and depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 4 }), (value, depth) => {
        expect(jsonAt(value, depth)).toBe(plainly(value, depth));
      }),
      { numRuns: 300 },
    );
  });
});
