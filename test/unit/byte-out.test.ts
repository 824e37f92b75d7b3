// ByteOut (src/cli/byte-out.ts): explain's trace through a 64 KB buffer. What reaches the stream
// is what the parts say, in order, whatever the sizes; json is made terminal-safe as safeJson
// does; and a buffer a stream still holds (a pipe that has not written it yet) is never written
// over.
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ByteOut } from '../../src/cli/byte-out.ts';
import { safeJson } from '../../src/output/json.ts';

/**
 * A stream that keeps what it is handed (a copy, as a descriptor's write leaves the bytes with the
 * kernel; or as handed, as a PassThrough does), and says it has `pending` bytes left to write.
 */
function holdingStream(
  pending: () => number,
  copies = false,
): { stream: NodeJS.WritableStream; chunks: Array<Buffer | string> } {
  const chunks: Array<Buffer | string> = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(copies && typeof chunk !== 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
    decodeStrings: false,
  });
  Object.defineProperty(stream, 'writableLength', { get: pending });
  return { stream, chunks };
}

const text = (chunks: Array<Buffer | string>): string =>
  chunks.map((c) => (typeof c === 'string' ? c : c.toString('utf8'))).join('');

/** Parts of text and of JSON.stringify's output, of every size around the buffer's. */
const part = fc.oneof(
  fc.record({ json: fc.constant(false), s: fc.string({ unit: 'grapheme', maxLength: 40 }) }),
  fc.record({ json: fc.constant(true), s: fc.string({ unit: 'binary', maxLength: 40 }).map((v) => JSON.stringify(v)) }),
  fc.record({ json: fc.boolean(), s: fc.integer({ min: 0, max: 300 }).map((n) => 'x'.repeat(n)) }),
);

describe('ByteOut', () => {
  for (const [name, pending, toDescriptor] of [
    ['a descriptor written at once (a file)', () => 0, true],
    ['a descriptor that holds what it is handed (a pipe whose reader is behind)', () => 1, true],
    ['a stream that keeps what it is handed as it is (a PassThrough)', () => 0, false],
  ] as const) {
    it(`writes every part in order, json made terminal-safe, to ${name}`, () => {
      fc.assert(
        fc.property(fc.array(part, { maxLength: 60 }), fc.integer({ min: 1, max: 128 }), (parts, size) => {
          // A descriptor's write that is done has left its bytes with the kernel; a pending one has not.
          const { stream, chunks } = holdingStream(pending, toDescriptor && pending() === 0);
          const out = new ByteOut(stream, size, { toDescriptor });
          for (const p of parts) {
            if (p.json) out.writeJson(p.s);
            else out.write(p.s);
          }
          out.flush();
          expect(text(chunks)).toBe(parts.map((p) => (p.json ? safeJson(p.s) : p.s)).join(''));
        }),
      );
    });
  }

  it('escapes what a terminal would act on in json (DEL, beyond ASCII) and leaves ASCII as it is', () => {
    const { stream, chunks } = holdingStream(() => 0);
    const out = new ByteOut(stream);
    const raw = JSON.stringify(['plain', 'del\x7f', 'bidi\u202e', 'ünï']);
    out.writeJson(raw);
    out.flush();
    expect(text(chunks)).toBe(safeJson(raw));
    expect(text(chunks)).toContain('\\u007f');
    expect(text(chunks)).toContain('\\u202e');
    expect(text(chunks)).not.toContain('\x7f');
  });

  it('with no buffer (a terminal), hands each part to the stream as it comes', () => {
    const { stream, chunks } = holdingStream(() => 0);
    const out = new ByteOut(stream, 0);
    out.write('a');
    out.write('b');
    expect(chunks).toEqual(['a', 'b']);
  });
});
