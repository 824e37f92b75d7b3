// Fuzzing what stands between MONITOR and the trace. (1) The line parser, fed real-looking lines
// with bytes flipped, cut or inserted: it returns a line or throws MonitorParseError, never
// anything else, and what it returns survives formatting and parsing again. (2) Attribution, fed a
// stream mixing the run's actors, the tool's own observer and handshakes, and other clients of
// the same server (REDIS_URL): exactly the actors' commands come out, [lua] lines with their
// EVAL, in order; nothing of another client ever does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MonitorParseError, parseMonitorLine } from '../../src/redis/monitor-line.ts';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';
import { attributeLines } from '../../src/scenarios/attribute.ts';

const arg = fc.oneof(
  fc.constantFrom('SELECT', 'EVAL', 'RPUSH', 'queues:default', '{"job":"x","attempts":1}', '', 'ECHO'),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.uint8Array({ maxLength: 12 }),
);
const client = fc.oneof(
  fc.constant('lua'),
  fc.tuple(fc.ipV4(), fc.nat({ max: 65_535 })).map(([ip, p]) => `${ip}:${p}`),
  fc.constant('[::1]:6379'),
);
const line = fc
  .record({
    sec: fc.nat({ max: 2_000_000_000 }),
    usec: fc.nat({ max: 999_999 }),
    db: fc.nat({ max: 15 }),
    client,
    args: fc.array(arg, { minLength: 1, maxLength: 5 }),
  })
  .map((l) =>
    formatMonitorLine({
      time: `${l.sec}.${String(l.usec).padStart(6, '0')}`,
      db: l.db,
      client: l.client,
      args: l.args,
    }),
  );

describe('the MONITOR line parser, fuzzed', () => {
  const mutation = fc.tuple(
    fc.nat(),
    fc.nat({ max: 8 }),
    fc.constantFrom('', '"', '\\', ' ', '\\x', '\\x4', 'é', '\u0000', '[', ']', '\r\n', '9'),
  );

  it('a mutated line parses to a line that survives a round trip, or is a MonitorParseError', () => {
    fc.assert(
      fc.property(line, mutation, (text, [at, cut, insert]) => {
        const i = at % (text.length + 1);
        const mutated = text.slice(0, i) + insert + text.slice(i + cut);
        let parsed;
        try {
          parsed = parseMonitorLine(mutated);
        } catch (e) {
          expect(e).toBeInstanceOf(MonitorParseError);
          expect((e as Error).message.length).toBeLessThan(400);
          return;
        }
        // Non-canonical but unambiguous input (\x40 for "@", upper-case hex, a trailing CRLF) is
        // accepted; what it means survives formatting and parsing again.
        expect(parseMonitorLine(formatMonitorLine(parsed))).toEqual(parsed);
      }),
      { numRuns: 3000, seed: 6 },
    );
  });
});

describe('attribution, fuzzed with other clients on the same server', () => {
  type Source =
    | { kind: 'actor'; actor: string; addr: string }
    | { kind: 'foreign'; addr: string }
    | { kind: 'observer'; addr: string };
  const ACTORS: Source[] = [
    { kind: 'actor', actor: 'dispatcher', addr: '127.0.0.1:50001' },
    { kind: 'actor', actor: 'worker-1', addr: '127.0.0.1:50002' },
  ];
  const OBSERVER: Source = { kind: 'observer', addr: '127.0.0.1:50000' };
  const foreign = fc
    .oneof(
      fc.constantFrom('127.0.0.1:40000', '10.0.0.7:6000', '[::1]:50001', 'unix:/tmp/redis.sock'),
      // Another host reusing our ports, and our host on other ports.
      fc.nat({ max: 65_535 }).map((p) => `127.0.0.2:${p}`),
    )
    .map((addr): Source => ({ kind: 'foreign', addr }));
  const source = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ACTORS) },
    { weight: 3, arbitrary: foreign },
    { weight: 1, arbitrary: fc.constant(OBSERVER) },
  );
  // An EVAL with its [lua] lines, or a plain command; the handshake of one of our connections.
  const command = fc.record({
    source,
    args: fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 3 }),
    eval: fc.boolean(),
    lua: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    handshake: fc.nat({ max: 9 }),
  });

  it('keeps exactly the actors commands and their [lua] lines, in order, and nothing else', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (cmds) => {
        const lines: string[] = [];
        const expected: Array<{ actor: string; source: 'client' | 'lua'; args: string[] }> = [];
        const book = {
          ownerOf: (addr: string) => {
            const actor = (ACTORS.find((a) => a.addr === addr) as { actor: string } | undefined)?.actor;
            return actor === undefined ? undefined : { actor, process: 1 };
          },
          isHandshake: (args: readonly string[]) =>
            args.length === 3 && args[0] === 'CLIENT' && args[1] === 'SETNAME' && args[2]!.startsWith('lqsim:run1:'),
        };
        let t = 0;
        const emit = (client: string, args: string[]) =>
          lines.push(formatMonitorLine({ time: `${1_700_000_000 + t++}.000000`, db: 0, client, args }));
        for (const c of cmds) {
          const mine = c.source.kind === 'actor';
          if (c.handshake === 0) {
            // A CLIENT SETNAME with our run's name: the tool's own, dropped even from an actor.
            emit(c.source.addr, ['CLIENT', 'SETNAME', 'lqsim:run1:worker-1:1']);
            continue;
          }
          const args = c.eval ? ['EVAL', 'return 1', '0', ...c.args] : c.args;
          emit(c.source.addr, args);
          if (mine) expected.push({ actor: (c.source as { actor: string }).actor, source: 'client', args });
          if (!c.eval) continue;
          for (const l of c.lua) {
            emit('lua', ['lpop', l]);
            if (mine) expected.push({ actor: (c.source as { actor: string }).actor, source: 'lua', args: ['lpop', l] });
          }
        }
        const { commands } = attributeLines(lines, book, { index: 0, t: 0 }, new Map());
        expect(commands.map((c) => ({ actor: c.actor, source: c.source, args: c.args }))).toEqual(expected);
      }),
      { numRuns: 1000, seed: 6 },
    );
  });
});
