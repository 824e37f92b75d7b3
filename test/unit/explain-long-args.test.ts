// lqsim explain's text shows other traffic's arguments cut after ARG_SHOWN characters, saying how
// many bytes were cut (a 10 MB value another client SETs was printed whole), as queue payloads are
// abbreviated; the timeline (json, ndjson) keeps every byte. MONITOR escapes every byte that is not
// printable ASCII as \xHH: the lines below are written that way by hand.
import { describe, expect, it } from 'vitest';
import { explainCapture } from '../../src/explain/index.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { renderStepText } from '../../src/output/text.ts';

const opts = { chalk: makeChalk(0), full: false, width: 100, clock: true };
const MIB = 1024 * 1024;

describe('lqsim explain: long arguments of other traffic', () => {
  it('are cut after 200 characters in text, with the bytes cut counted; the timeline keeps them whole', () => {
    const value = 'x'.repeat(10 * MIB);
    const capture = [
      `1000.000001 [0 127.0.0.1:5002] "SET" "cache:big" "${value}"`,
      // 300 é: 600 bytes, each \xc3\xa9 on the wire; 200 characters shown, 100 (200 bytes) cut.
      `1000.000002 [0 127.0.0.1:5002] "SET" "cache:e" "${'\\xc3\\xa9'.repeat(300)}"`,
      // 300 bytes that are not UTF-8: shown as bytes, 100 cut.
      `1000.000003 [0 127.0.0.1:5002] "SET" "cache:bin" "${'\\xff'.repeat(300)}"`,
      `1000.000004 [0 127.0.0.1:5002] "SET" "cache:short" "${'y'.repeat(200)}"`,
      // 'a' and 150 emoji (4 bytes, 2 UTF-16 units each): the 200th unit would be half of one, so
      // 'a' and 99 are shown and 51 (204 bytes) cut.
      `1000.000005 [0 127.0.0.1:5002] "SET" "cache:emoji" "a${'\\xf0\\x9f\\x98\\x80'.repeat(150)}"`,
    ].join('\n');
    const { timeline } = explainCapture(capture);
    const text = renderStepText(timeline.steps[0]!, timeline, opts);
    const lines = text.split('\n');
    expect(lines[1]).toBe(`    SET cache:big ${'x'.repeat(200)}…‹${10 * MIB - 200} bytes cut›`);
    expect(lines[2]).toBe(`    SET cache:e ${'é'.repeat(200)}…‹200 bytes cut›`);
    expect(lines[3]).toBe(`    SET cache:bin "${'\\xff'.repeat(200)}"…‹100 bytes cut›`);
    expect(lines[4]).toBe(`    SET cache:short ${'y'.repeat(200)}`);
    expect(lines[5]).toBe(`    SET cache:emoji a${'😀'.repeat(99)}…‹204 bytes cut›`);
    expect(text.length).toBeLessThan(2000);
    // The timeline (what json and ndjson print) holds the value as sent.
    expect(timeline.steps[0]!.commands[0]!.args[2]).toBe(value);
  });
});
