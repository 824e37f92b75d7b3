import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MonitorParseError,
  isMonitorOk,
  parseMonitorArgBytes,
  parseMonitorLine,
} from '../../src/redis/monitor-line.ts';
import { formatMonitorLine, sdscatrepr } from '../../src/redis/redis-escape.ts';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parseMonitorLine: lines as Redis prints them', () => {
  it('reads the seed capture style [db lua] line with a doubly escaped JSON payload', () => {
    // Written the way it appears on the wire: JSON \" is \\\" and JSON \\ is \\\\.
    const line = String.raw`1489802333.959965 [0 lua] "zadd" "queues:default:reserved" "1489802343" "{\"id\":\"q7ss6fRgCbMNHhCv6gOXX0Or7B43blU9\",\"attempts\":2,\"job\":\"Illuminate\\\\Queue\\\\CallQueuedHandler@call\",\"data\":{\"command\":\"O:8:\\\"App\\\\Job\\\":0:{}\"}}"`;
    const parsed = parseMonitorLine(line);
    expect(parsed).toEqual({
      time: '1489802333.959965',
      db: 0,
      client: 'lua',
      args: [
        'zadd',
        'queues:default:reserved',
        '1489802343',
        String.raw`{"id":"q7ss6fRgCbMNHhCv6gOXX0Or7B43blU9","attempts":2,"job":"Illuminate\\Queue\\CallQueuedHandler@call","data":{"command":"O:8:\"App\\Job\":0:{}"}}`,
      ],
    });
    const payload = JSON.parse(parsed.args[3]!) as { job: string; data: { command: string } };
    expect(payload.job).toBe('Illuminate\\Queue\\CallQueuedHandler@call');
    expect(payload.data.command).toBe('O:8:"App\\Job":0:{}');
  });

  it('reads a TCP client line with an EVAL script containing \\n and \\"', () => {
    const line = String.raw`1795301068.393195 [0 127.0.0.1:59488] "EVAL" "-- Push the job onto the queue...\nredis.call('rpush', KEYS[1], ARGV[1])\n-- Push a notification onto the \"notify\" queue..." "2" "q" "q:notify"`;
    const parsed = parseMonitorLine(line);
    expect(parsed.client).toBe('127.0.0.1:59488');
    expect(parsed.args[1]).toBe(
      `-- Push the job onto the queue...\nredis.call('rpush', KEYS[1], ARGV[1])\n-- Push a notification onto the "notify" queue...`,
    );
    expect(parsed.args.slice(2)).toEqual(['2', 'q', 'q:notify']);
    expect(parsed.binaryArgs).toBeUndefined();
  });

  it('decodes UTF-8 sent as \\xc3\\xa9 and keeps \\/ from cjson as is', () => {
    const parsed = parseMonitorLine(String.raw`1795301068.393332 [0 lua] "rpush" "k" "a@b.c\\/\xc3\xa9 \xE2\x9C\x93"`);
    expect(parsed.args[2]).toBe('a@b.c\\/é ✓');
    expect(parsed.binaryArgs).toBeUndefined();
  });

  it('reads every escape sdscatrepr writes', () => {
    const parsed = parseMonitorArgBytes(String.raw`1.000000 [0 lua] "\\\"\n\r\t\a\b\x00\x7f\x0c\x0b\xff"`);
    expect(parsed).toEqual([bytes(0x5c, 0x22, 0x0a, 0x0d, 0x09, 0x07, 0x08, 0x00, 0x7f, 0x0c, 0x0b, 0xff)]);
  });

  it('keeps the empty string and args that look like separators', () => {
    const parsed = parseMonitorLine(String.raw`1795300484.434535 [0 127.0.0.1:54716] "SET" "" "a\" \"b" "] \"x"`);
    expect(parsed.args).toEqual(['SET', '', 'a" "b', '] "x']);
  });

  it('reads db 3, unix socket and IPv6 clients', () => {
    expect(parseMonitorLine('1700000000.000001 [3 127.0.0.1:6380] "SELECT" "3"')).toMatchObject({
      db: 3,
      args: ['SELECT', '3'],
    });
    expect(parseMonitorLine('1700000000.000001 [0 unix:/tmp/redis.sock] "PING"').client).toBe('unix:/tmp/redis.sock');
    expect(parseMonitorLine('1700000000.000001 [15 [::1]:6379] "PING"')).toMatchObject({
      db: 15,
      client: '[::1]:6379',
    });
  });

  it("accepts the RESP '+' and a trailing CRLF (or LF), and keeps the time as printed", () => {
    const parsed = parseMonitorLine('+1489802333.957500 [0 lua] "llen" "q"\r\n');
    expect(parsed).toEqual({ time: '1489802333.957500', db: 0, client: 'lua', args: ['llen', 'q'] });
    expect(parseMonitorLine('1.000000 [0 lua] "x"\n').args).toEqual(['x']);
  });

  it('decodes bytes that are not UTF-8 as latin1 and says which args they were', () => {
    const parsed = parseMonitorLine(String.raw`1.000000 [0 lua] "SET" "bin\xffkey" "ok\xc3\xa9" "\xc3"`);
    expect(parsed.args).toEqual(['SET', 'bin\u00ffkey', 'oké', '\u00c3']);
    expect(parsed.binaryArgs).toEqual([1, 3]);
    expect(parseMonitorArgBytes(String.raw`1.000000 [0 lua] "SET" "bin\xffkey"`)[1]).toEqual(
      bytes(0x62, 0x69, 0x6e, 0xff, 0x6b, 0x65, 0x79),
    );
  });

  it('keeps a leading byte order mark rather than stripping it', () => {
    expect(parseMonitorLine(String.raw`1.000000 [0 lua] "\xef\xbb\xbfx"`).args).toEqual(['\ufeffx']);
  });

  it('accepts upper case hex, which Redis never writes but is unambiguous', () => {
    expect(parseMonitorArgBytes(String.raw`1.000000 [0 lua] "\xAB\xcD"`)).toEqual([bytes(0xab, 0xcd)]);
  });

  it('recognises the OK reply to MONITOR', () => {
    for (const ok of ['OK', '+OK', 'OK\r\n', '+OK\r\n']) expect(isMonitorOk(ok)).toBe(true);
    for (const other of ['', 'OKAY', '1.000000 [0 lua] "OK"', 'ok']) expect(isMonitorOk(other)).toBe(false);
  });
});

describe('parseMonitorLine: malformed lines are errors with an offset', () => {
  const cases: [string, string, number][] = [
    ['missing quotes', '1.000000 [0 lua] zadd', 17],
    ['junk between args', '1.000000 [0 lua] "a"x"b"', 20],
    ['two spaces between args', '1.000000 [0 lua] "a"  "b"', 21],
    ['trailing space', '1.000000 [0 lua] "a" ', 21],
    ['unterminated arg', '1.000000 [0 lua] "abc', 17],
    ['unterminated after an escape', String.raw`1.000000 [0 lua] "a\"`, 17],
    ['backslash at the end', '1.000000 [0 lua] "a\\', 17],
    ['unknown escape', String.raw`1.000000 [0 lua] "\q"`, 18],
    ['\\x with one hex digit', String.raw`1.000000 [0 lua] "\x4"`, 18],
    ['\\x with a non-hex digit', String.raw`1.000000 [0 lua] "\xg0"`, 18],
    ['raw control char', '1.000000 [0 lua] "a\tb"', 19],
    ['raw non-ASCII char', '1.000000 [0 lua] "é"', 18],
    ['short microseconds', '1.00000 [0 lua] "a"', 7],
    ['no timestamp', '[0 lua] "a"', 0],
    ['no db', '1.000000 [lua] "a"', 10],
    ['no client', '1.000000 [0 ] "a"', 12],
    ['unclosed bracket', '1.000000 [0 lua "a"', 12],
    ['empty line', '', 0],
  ];
  it.each(cases)('%s', (_name, line, offset) => {
    let caught: unknown;
    try {
      parseMonitorLine(line);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(MonitorParseError);
    const err = caught as MonitorParseError;
    expect(err.line).toBe(line);
    expect(err.offset).toBe(offset);
    expect(() => parseMonitorArgBytes(line)).toThrow(MonitorParseError);
  });

  it('keeps the message short for a huge line', () => {
    const line = `1.000000 [0 lua] "${'a'.repeat(100_000)}`;
    expect(() => parseMonitorLine(line)).toThrow(MonitorParseError);
    try {
      parseMonitorLine(line);
    } catch (err) {
      expect((err as Error).message.length).toBeLessThan(200);
    }
  });
});

describe('sdscatrepr and formatMonitorLine', () => {
  it('escape the way Redis does (lower case \\x for non-printables and bytes >= 0x80)', () => {
    expect(sdscatrepr('héllo "x"\\\n\f')).toBe(String.raw`"h\xc3\xa9llo \"x\"\\\n\x0c"`);
    expect(sdscatrepr(bytes(0x00, 0x07, 0x08, 0x09, 0x0d, 0x7e, 0x7f, 0x20))).toBe(String.raw`"\x00\a\b\t\r~\x7f "`);
    expect(sdscatrepr('')).toBe('""');
  });

  it('formats a line like replicationFeedMonitors (no + and no CRLF)', () => {
    expect(
      formatMonitorLine({ time: '1700000000.000001', db: 3, client: 'lua', args: ['rpush', 'q', utf8('é')] }),
    ).toBe(String.raw`1700000000.000001 [3 lua] "rpush" "q" "\xc3\xa9"`);
  });

  it('gives back the original text for a parsed line, binary args included', () => {
    const line = String.raw`1.000000 [0 127.0.0.1:1] "SET" "bin\xffkey" "\xc3\xa9\"\\" ""`;
    expect(formatMonitorLine(parseMonitorLine(line))).toBe(line);
  });
});

describe('properties', () => {
  const header = fc.record({
    time: fc
      .tuple(fc.nat(), fc.integer({ min: 0, max: 999_999 }))
      .map(([s, us]) => `${s}.${String(us).padStart(6, '0')}`),
    db: fc.nat({ max: 10_000 }),
    client: fc.oneof(
      fc.constant('lua'),
      fc.tuple(fc.ipV4(), fc.nat({ max: 65_535 })).map(([ip, p]) => `${ip}:${p}`),
      fc.tuple(fc.ipV6(), fc.nat({ max: 65_535 })).map(([ip, p]) => `[${ip}]:${p}`),
      fc.stringMatching(/^\/[a-z0-9/._-]{1,30}$/).map((p) => `unix:${p}`),
    ),
  });
  const wellFormed = (s: string): boolean => Buffer.from(s, 'utf8').toString('utf8') === s;

  it('parseMonitorArgBytes(formatMonitorLine(args)) gives back the exact bytes', () => {
    fc.assert(
      fc.property(header, fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (h, args) => {
        const line = formatMonitorLine({ ...h, args });
        expect(parseMonitorArgBytes(line)).toEqual(args);
        expect(parseMonitorArgBytes(`+${line}\r\n`)).toEqual(args);
        const parsed = parseMonitorLine(line);
        expect([parsed.time, parsed.db, parsed.client]).toEqual([h.time, h.db, h.client]);
        expect(formatMonitorLine(parsed)).toBe(line);
      }),
      { numRuns: 500 },
    );
  });

  it('parseMonitorLine(formatMonitorLine(strings)).args gives back any Unicode strings', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }).filter(wellFormed),
      fc.string({ unit: 'grapheme' }),
      fc.string(),
    );
    fc.assert(
      fc.property(header, fc.array(text, { maxLength: 8 }), (h, args) => {
        const parsed = parseMonitorLine(formatMonitorLine({ ...h, args }));
        expect(parsed.args).toEqual(args);
        expect(parsed.binaryArgs).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('never fails on garbage with anything but MonitorParseError', () => {
    const prefix = fc.constantFrom('', '1.000000 [0 lua] ', '+1700000000.123456 [3 [::1]:6379] "GET" ');
    const junk = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom('"', '\\', ' ', 'x', 'a', '0', 'f', 'n', '[', ']', '\r', '\n', 'é') }),
    );
    fc.assert(
      fc.property(prefix, junk, (p, j) => {
        const line = p + j;
        for (const parse of [parseMonitorLine, parseMonitorArgBytes]) {
          try {
            parse(line);
          } catch (err) {
            expect(err).toBeInstanceOf(MonitorParseError);
            const offset = (err as MonitorParseError).offset;
            expect(offset).toBeGreaterThanOrEqual(0);
            expect(offset).toBeLessThanOrEqual(line.length);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
