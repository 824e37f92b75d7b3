import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTerminalSafe, quoteArg, quoteBytes, terminalSafe } from '../../src/output/terminal-safe.ts';
import { displayWidth, wrap } from '../../src/output/wrap.ts';

/** Any UTF-16 code unit (lone surrogates included), any astral code point, and the usual suspects. */
const anyChar = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  fc.constantFrom('\x1b', '\x9b', '\x7f', '\u202e', '\u2066', '\n', '\r', '\t', '\\', '"', "'", ' ', '‹', 'é', '漢'),
);
const anyString = fc.string({ unit: anyChar, maxLength: 40 });

/** Code units that must never reach a terminal raw. */
const FORBIDDEN =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\udb40[\udc00-\udc7f]/;
function hasLoneSurrogate(s: string): boolean {
  return /[\ud800-\udfff]/u.test(s);
}

/** Inverse of quoteArg's quoted form, to prove it is unambiguous. */
function unquote(q: string): string {
  expect(q.startsWith('"') && q.endsWith('"')).toBe(true);
  return q
    .slice(1, -1)
    .replace(/\\(?:x([0-9a-f]{2})|u\{([0-9a-f]+)\}|u([0-9a-f]{4})|(.))/gsu, (_, x, uBraced, u, c: string) => {
      if (x !== undefined) return String.fromCharCode(parseInt(x as string, 16));
      if (uBraced !== undefined) return String.fromCodePoint(parseInt(uBraced as string, 16));
      if (u !== undefined) return String.fromCharCode(parseInt(u as string, 16));
      return ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[c] ?? c;
    });
}

describe('terminalSafe', () => {
  it('escapes C0 controls, DEL and C1 controls', () => {
    expect(terminalSafe('a\nb\tc\rd')).toBe(String.raw`a\nb\tc\rd`);
    expect(terminalSafe('\x1b[2J\x00\x07\x7f')).toBe(String.raw`\x1b[2J\x00\x07\x7f`);
    expect(terminalSafe('\u0080\u009b\u009f')).toBe(String.raw`\u0080\u009b\u009f`);
  });
  it('escapes bidi controls and invisible format characters', () => {
    expect(terminalSafe('a\u202eb\u2066c\u2069d\u200fe')).toBe(String.raw`a\u202eb\u2066c\u2069d\u200fe`);
    expect(terminalSafe('\u200b\ufeff\u00ad\u2028')).toBe(String.raw`\u200b\ufeff\u00ad\u2028`);
    expect(terminalSafe('x\u{e0041}y')).toBe(String.raw`x\u{e0041}y`);
    expect(terminalSafe('\ud800x\udc00')).toBe(String.raw`\ud800x\udc00`);
  });
  it('keeps printable Unicode, emoji sequences included', () => {
    for (const s of ['café ✓', '漢字とかな', '👨‍👩‍👧', 'queues:default', 'a\\b "q"']) expect(terminalSafe(s)).toBe(s);
  });
  it('never lets a control, bidi or invisible character through', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const out = terminalSafe(s);
        expect(out).not.toMatch(FORBIDDEN);
        expect(hasLoneSurrogate(out)).toBe(false);
        expect(isTerminalSafe(out)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('quoteArg', () => {
  it('leaves plain arguments bare', () => {
    for (const s of ['SELECT', 'queues:default:reserved', '1700000090', '-inf', 'café', '漢字'])
      expect(quoteArg(s)).toBe(s);
  });
  it('quotes and escapes everything else', () => {
    expect(quoteArg('')).toBe('""');
    expect(quoteArg('a b')).toBe('"a b"');
    expect(quoteArg('say "hi"')).toBe(String.raw`"say \"hi\""`);
    expect(quoteArg('C:\\x')).toBe(String.raw`"C:\\x"`);
    expect(quoteArg("it's")).toBe(`"it's"`);
    expect(quoteArg('a\x1b[2Jb\u202ec')).toBe(String.raw`"a\x1b[2Jb\u202ec"`);
    expect(quoteArg('line\nnext')).toBe(String.raw`"line\nnext"`);
    expect(quoteArg('‹pop›')).toBe('"‹pop›"');
    expect(quoteArg('no\u00a0break')).toBe('"no\u00a0break"');
  });
  it('is safe, bare only when unambiguous, and reversible when quoted', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const out = quoteArg(s);
        expect(out).not.toMatch(FORBIDDEN);
        expect(hasLoneSurrogate(out)).toBe(false);
        if (out.startsWith('"')) expect(unquote(out)).toBe(s);
        else {
          expect(out).toBe(s);
          expect(out).not.toMatch(/[\s"'\\]/u);
          expect(out).not.toBe('');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('quoteBytes', () => {
  it('shows latin1-decoded bytes as redis-cli would', () => {
    expect(quoteBytes('ok\xff\x00\n"\\')).toBe(String.raw`"ok\xff\x00\n\"\\"`);
  });
  it('never lets a control through', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyChar, maxLength: 40 }), (s) => {
        expect(quoteBytes(s)).toMatch(/^"[\x20-\x7e]*"$/);
      }),
    );
  });
});

describe('wrap', () => {
  it('breaks at spaces within the width', () => {
    expect(wrap('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrap('', 10)).toEqual(['']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });
  it('counts CJK as two columns and breaks beside them', () => {
    expect(displayWidth('漢字a')).toBe(5);
    expect(wrap('任务在三个队列中进行轮转', 8)).toEqual(['任务在三', '个队列中', '进行轮转']);
    expect(wrap('使用 lua 脚本', 6)).toEqual(['使用', 'lua 脚', '本']);
  });
  it('never exceeds the width when every piece fits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z漢]{1,6}$/), { maxLength: 20 }),
        fc.integer({ min: 6, max: 30 }),
        (words, w) => {
          for (const line of wrap(words.join(' '), w)) expect(displayWidth(line)).toBeLessThanOrEqual(w);
        },
      ),
    );
  });
});
