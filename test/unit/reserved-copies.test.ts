// The pop script's reserved copy (cjson.encode of the job with attempts + 1), foreseen from the key
// order an earlier pop of the same shape showed. Expected copies are written by hand from
// lua_cjson's rules (Redis' deps/lua/src/lua_cjson.c: char2escape escapes the control characters,
// `"`, `\`, `/` and DEL; numbers by "%.14g") and the order the reply below is given in.
import { describe, expect, it } from 'vitest';
import { ReservedCopies } from '../../src/sim/model/reserved-copies.ts';

// A payload as PHP's json_encode writes it (its key order, `\/` and `\u0000` escaped).
const first = String.raw`{"uuid":"u-1","displayName":"App\\Jobs\\SendInvoice","maxTries":3,"timeout":null,"data":{"commandName":"App\\Jobs\\SendInvoice","command":"O:8:\"x\":1:{s:4:\"\u0000*\u0000a\";i:1;}"},"failOnTimeout":false,"attempts":0}`;
// What the pop returned as its copy of it: Lua's table order (as a server might give it), attempts 1.
const firstCopy = String.raw`{"timeout":null,"attempts":1,"data":{"command":"O:8:\"x\":1:{s:4:\"\u0000*\u0000a\";i:1;}","commandName":"App\\Jobs\\SendInvoice"},"uuid":"u-1","failOnTimeout":false,"maxTries":3,"displayName":"App\\Jobs\\SendInvoice"}`;

describe('ReservedCopies', () => {
  it('foresees nothing until a pop of that shape has come back, then writes each copy as cjson would', () => {
    const copies = new ReservedCopies();
    expect(copies.foresee(first)).toBeNull();
    copies.learn(first, firstCopy);
    expect(copies.foresee(first)).toBe(firstCopy);
    // Another job of the same keys: a slash, a tab, DEL, a NUL, é and an emoji in its values, and
    // attempts 4 (a release brought it back). cjson writes `\/`, `\t`, `\u007f`, `\u0000`, and
    // the UTF-8 characters as they are.
    const second = JSON.stringify({
      uuid: 'u-2',
      displayName: 'App/Jobs\tX\u007f',
      maxTries: null,
      timeout: 1700003600,
      data: { commandName: 'X', command: 'a\u0000"é😀' },
      failOnTimeout: true,
      attempts: 4,
    });
    expect(copies.foresee(second)).toBe(
      String.raw`{"timeout":1700003600,"attempts":5,"data":{"command":"a\u0000\"é😀","commandName":"X"},"uuid":"u-2","failOnTimeout":true,"maxTries":null,"displayName":"App\/Jobs\tX\u007f"}`,
    );
  });

  it('keeps no order from a copy it cannot write back exactly, and then foresees nothing of that shape', () => {
    const copies = new ReservedCopies();
    // "%.14g" never writes 1 as 1.0: this is not cjson's writing, whatever wrote it.
    copies.learn(first, firstCopy.replace('"attempts":1', '"attempts":1.0'));
    expect(copies.foresee(first)).toBeNull();
    copies.learn(first, firstCopy);
    expect(copies.foresee(first)).toBeNull();
  });

  it('does not foresee what it cannot be sure cjson writes the same way, even after its pop came back', () => {
    // Each payload, and a copy of it as a server could return it (attempts + 1, the same order).
    const cases: Array<[string, string]> = [
      [String.raw`{"tags":["a"],"attempts":0}`, String.raw`{"tags":["a"],"attempts":1}`], // an array
      [String.raw`{"delay":1.5,"attempts":0}`, String.raw`{"delay":1.5,"attempts":1}`], // a fraction
      [String.raw`{"big":100000000000000,"attempts":0}`, String.raw`{"big":1e+14,"attempts":1}`], // 10^14
      [String.raw`{"7":"x","attempts":0}`, String.raw`{"7":"x","attempts":1}`], // an index-like key
      [String.raw`{"s":"\ud800","attempts":0}`, String.raw`{"s":"\ud800","attempts":1}`], // a lone surrogate
      [String.raw`{"data":{},"attempts":0}`, String.raw`{"data":{},"attempts":1}`], // an empty object
      [String.raw`{"uuid":"x"}`, String.raw`{"uuid":"x"}`], // no attempts: the script fails
      ['not json', 'not json'],
    ];
    for (const [payload, copy] of cases) {
      const copies = new ReservedCopies();
      copies.learn(payload, copy);
      expect([payload, copies.foresee(payload)]).toEqual([payload, null]);
    }
    // The same check passes a payload of plain values, so it is the values above that stop it.
    const plain = new ReservedCopies();
    plain.learn(String.raw`{"n":5,"attempts":0}`, String.raw`{"n":5,"attempts":1}`);
    expect(plain.foresee(String.raw`{"n":6,"attempts":2}`)).toBe(String.raw`{"n":6,"attempts":3}`);
  });
});
