// The first pass of `lqsim explain` reads a line's args only as far as it needs them
// (parseMonitorLineHead), and every reading decodes each of Laravel's scripts once per capture.
// Expected values are the args as written, never the parser's output.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MonitorParseError, parseMonitorLine, parseMonitorLineHead } from '../../src/redis/monitor-line.ts';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';

const POP = `-- Pop the first job off of the queue...\nlocal job = redis.call('lpop', KEYS[1])\nlocal reserved = false`;

describe('parseMonitorLineHead: the args asked for, and no further', () => {
  const line = formatMonitorLine({
    time: '1700000000.000001',
    db: 0,
    client: '127.0.0.1:5000',
    args: ['EVAL', POP, '2', 'queues:default', 'queues:default:reserved', '1700000090', '{"uuid":"u"}'],
  });

  it('stops where `wanted` says, and says the line has more', () => {
    const head = parseMonitorLineHead(line, (_client, args) => args.length < 3);
    expect(head.args).toEqual(['EVAL', POP, '2']);
    expect(head.partial).toBe(true);
    expect(head.client).toBe('127.0.0.1:5000');
    // Asked for everything: the whole line, not partial.
    const whole = parseMonitorLineHead(line, () => true);
    expect(whole.args).toEqual(parseMonitorLine(line).args);
    expect(whole.partial).toBeUndefined();
  });

  it('is told the client before the first arg (a script line wants none)', () => {
    const lua = formatMonitorLine({ time: '1700000000.000002', db: 0, client: 'lua', args: ['rpush', 'q', 'x'] });
    const seen: string[] = [];
    const head = parseMonitorLineHead(lua, (client) => (seen.push(client), false));
    expect(seen).toEqual(['lua']);
    expect(head.args).toEqual([]);
    expect(head.partial).toBe(true);
  });

  it('leaves a broken arg past the ones asked for unread; a whole reading refuses it', () => {
    const broken = `${line.slice(0, -1)}\\q"`; // an escape MONITOR never prints, in the payload
    expect(parseMonitorLineHead(broken, (_c, args) => args.length < 6).args).toHaveLength(6);
    expect(() => parseMonitorLine(broken)).toThrow(MonitorParseError);
    expect(() => parseMonitorLine(broken)).toThrow(/unknown escape/);
  });

  it('still refuses a broken header or a broken arg among those asked for', () => {
    expect(() => parseMonitorLineHead(`x${line}`, () => false)).toThrow(/expected timestamp seconds/);
    const badScript = line.replace('queue...', 'queue...\\q');
    expect(() => parseMonitorLineHead(badScript, (_c, args) => args.length < 2)).toThrow(/unknown escape/);
  });
});

describe("the args a reader only counts ('count')", () => {
  const count = (line: string) => parseMonitorLineHead(line, (_c, args) => (args.length < 2 ? true : 'count'));

  it('counts what a whole reading reads, whatever the args hold (a lone space, a text ending in a quote and a space)', () => {
    const arg = fc.oneof(fc.constantFrom(' ', '" ', 'x" ', '"', '\\', ' " ', '" "', ''), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(fc.array(arg, { minLength: 1, maxLength: 6 }), (rest) => {
        const args = ['ZREM', 'queues:default:reserved', ...rest];
        const line = formatMonitorLine({ time: '1700000000.000001', db: 0, client: '127.0.0.1:1', args });
        const head = count(line);
        expect(head.argc ?? head.args.length).toBe(args.length);
        expect(head.args.slice(0, 2)).toEqual(args.slice(0, 2));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('long last args, read the fast way where that is exact', () => {
  it('reads any args as written, the last long one included (quotes, backslashes, lone spaces at its end)', () => {
    const char = fc.constantFrom('a', 'b', ' ', '"', '\\', '{', '}', ':', '\n', 'é');
    const text = (max: number) => fc.array(char, { maxLength: max }).map((cs) => cs.join(''));
    const tail = fc.constantFrom('', ' ', '" ', '\\', ' " ', '"');
    const long = fc.tuple(text(300), tail).map(([t, end]) => `${'x'.repeat(130)}${t}${end}`);
    fc.assert(
      fc.property(fc.array(fc.oneof(text(8), fc.constant(' ')), { maxLength: 3 }), long, (first, last) => {
        const args = ['RPUSH', ...first, last];
        const line = formatMonitorLine({ time: '1700000000.000001', db: 0, client: '127.0.0.1:1', args });
        expect(parseMonitorLine(line).args).toEqual(args);
        expect(parseMonitorLine(line).args).toEqual(args); // again: the last-args memo answers
      }),
      { numRuns: 1000 },
    );
  });
});

describe("Laravel's scripts, decoded once", () => {
  const evalLine = (script: string, ...rest: string[]): string =>
    formatMonitorLine({ time: '1700000000.000003', db: 0, client: '127.0.0.1:5001', args: ['EVAL', script, ...rest] });

  it('gives the same text for every EVAL of a script, and the args after it as they are', () => {
    const a = parseMonitorLine(evalLine(POP, '2', 'q', 'q:reserved', '1700000090'));
    const b = parseMonitorLine(evalLine(POP, '2', 'other', 'other:reserved', '1700000091'));
    expect(a.args).toEqual(['EVAL', POP, '2', 'q', 'q:reserved', '1700000090']);
    expect(b.args).toEqual(['EVAL', POP, '2', 'other', 'other:reserved', '1700000091']);
  });

  it('never takes a longer or a shorter script for one it has seen', () => {
    parseMonitorLine(evalLine(POP, '0'));
    const longer = `${POP}\nreturn {job, reserved}`;
    expect(parseMonitorLine(evalLine(longer, '0')).args[1]).toBe(longer);
    const shorter = POP.slice(0, -10);
    expect(parseMonitorLine(evalLine(shorter, '0')).args[1]).toBe(shorter);
    // A script whose text ends in a backslash, and one that is another's text with a quote after it.
    const backslash = `${POP}\\`;
    expect(parseMonitorLine(evalLine(backslash, '0')).args).toEqual(['EVAL', backslash, '0']);
    expect(parseMonitorLine(evalLine(`${POP}"`, '0')).args).toEqual(['EVAL', `${POP}"`, '0']);
  });

  it('reads any mix of repeated scripts and args as they were written', () => {
    // Scripts from a small pool (so they repeat) with variations on a shared long prefix.
    const script = fc
      .tuple(fc.constantFrom(POP, `${POP}\n-- more`, `-- ${POP}`), fc.constantFrom('', '"', '\\', '\n', 'é', '\x00'))
      .map(([s, tail]) => `${s}${tail}`);
    fc.assert(
      fc.property(script, fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 }), (s, rest) => {
        const args = ['EVAL', s, String(rest.length), ...rest];
        expect(parseMonitorLine(evalLine(s, String(rest.length), ...rest)).args).toEqual(args);
      }),
      { numRuns: 500 },
    );
  });
});
