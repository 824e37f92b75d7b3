// The normaliser on hand-built traces: every expected string below is written out by hand.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMonitorLine } from '../../src/redis/monitor-line.ts';
import { diffTraces, isIdentical } from '../../src/trace/diff.ts';
import { formatGolden, parseGolden } from '../../src/trace/golden-text.ts';
import type { NormalisedTrace } from '../../src/trace/normalise.ts';
import { normaliseTrace } from '../../src/trace/normalise.ts';
import { normaliseString, Replacements } from '../../src/trace/replace.ts';
import type { TraceLike, TraceLikeCommand } from '../../src/trace/trace-like.ts';
import { actorsFromAddresses, fromMonitorLines, fromTimeline, inferPrefix } from '../../src/trace/trace-like.ts';
import { timelineFixture } from '../fixtures/timeline-fixture.ts';

const START = 1_700_000_000;
const ID_A = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const ID_B = 'ZyXwVuTsRqPoNmLkJiHgFeDcBa987654';
const UUID_A = 'a00087fb-f747-4cb8-adfe-747d23673f27';
const UUID_B = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9';

const client = (actor: string, ...args: string[]): TraceLikeCommand => ({ source: 'client', actor, db: 0, args });
const lua = (actor: string, ...args: string[]): TraceLikeCommand => ({ source: 'lua', actor, db: 0, args });
const trace = (commands: TraceLikeCommand[][], extra: Partial<TraceLike> = {}): TraceLike => ({
  start: START,
  steps: commands.map((c) => ({ actor: c[0]?.actor ?? 'worker-1', commands: c })),
  ...extra,
});
const args = (t: NormalisedTrace) => t.steps.map((s) => s.commands.map((c) => c.args));

/** A 5.7-style payload as PHP's json_encode writes it (\/ and \u0000 escapes kept in the raw text). */
const payload = (id: string, attempts: number) =>
  String.raw`{"displayName":"App\\Jobs\\SendEmail","job":"Illuminate\\Queue\\CallQueuedHandler@call","maxTries":null,"timeout":null,"timeoutAt":null,"data":{"commandName":"App\\Jobs\\SendEmail","command":"O:18:\"App\\Jobs\\SendEmail\":1:{s:6:\"\u0000*\u0000job\";N;}"},"id":"` +
  id +
  `","attempts":${attempts}}`;

describe('times', () => {
  it('rewrites stand-alone unix times (ZADD scores, script ARGV) relative to the start, and nothing else', () => {
    const n = normaliseTrace(
      trace([
        [
          client('worker-1', 'EVAL', 'return 1', '2', 'queues:default:delayed', 'queues:default', '1700000000'),
          lua('worker-1', 'zrangebyscore', 'queues:default:delayed', '-inf', '1700000000'),
          client('worker-1', 'ZADD', 'queues:default:reserved', '1700000090', 'x'),
          client('worker-1', 'ZADD', 'queues:default:delayed', '1699999995', 'y'),
          client('worker-1', 'ZADD', 'z', '1700000000.25', 'w'),
          // Counts, far-away 10-digit numbers and digits inside words stay as they are.
          client('worker-1', 'BLPOP', 'queues:default', '5'),
          client('worker-1', 'SET', 'k', '9999999999'),
          client('worker-1', 'SET', 'k1700000000', 'a1700000000b'),
        ],
      ]),
    );
    expect(args(n)).toEqual([
      [
        ['EVAL', 'return 1', '2', 'queues:default:delayed', 'queues:default', 'T+0'],
        ['zrangebyscore', 'queues:default:delayed', '-inf', 'T+0'],
        ['ZADD', 'queues:default:reserved', 'T+90', 'x'],
        ['ZADD', 'queues:default:delayed', 'T-5', 'y'],
        ['ZADD', 'z', 'T+0.25', 'w'],
        ['BLPOP', 'queues:default', '5'],
        ['SET', 'k', '9999999999'],
        ['SET', 'k1700000000', 'a1700000000b'],
      ],
    ]);
  });

  it('turns a time inside payload JSON (retryUntil, createdAt) into the string "T+N", keeping the JSON valid', () => {
    const raw = `{"job":"X","retryUntil":1700000120,"createdAt":1700000000,"id":"${ID_A}","attempts":0,"maxTries":3}`;
    const n = normaliseTrace(trace([[client('dispatcher', 'RPUSH', 'queues:default', raw)]]));
    expect(n.steps[0]!.commands[0]!.args[2]).toBe(
      '{"job":"X","retryUntil":"T+120","createdAt":"T+0","id":"ID1","attempts":0,"maxTries":3}',
    );
  });
});

describe('ids and uuids', () => {
  it('numbers job ids and uuids in order of first appearance, the same id always the same name', () => {
    const withUuid = (uuid: string, id: string) => `{"uuid":"${uuid}","job":"X","id":"${id}","attempts":0}`;
    const n = normaliseTrace(
      trace([
        [
          client('dispatcher', 'RPUSH', 'queues:default', withUuid(UUID_B, ID_B)),
          client('dispatcher', 'RPUSH', 'queues:default', withUuid(UUID_A, ID_A)),
        ],
        [client('worker-1', 'ZREM', 'queues:default:reserved', withUuid(UUID_B, ID_B))],
        // A 32-character token that is no payload's id is not a job id.
        [client('worker-1', 'SET', 'cache', 'QqQqQqQqQqQqQqQqQqQqQqQqQqQqQqQq')],
      ]),
    );
    expect(args(n)).toEqual([
      [
        ['RPUSH', 'queues:default', '{"uuid":"UUID1","job":"X","id":"ID1","attempts":0}'],
        ['RPUSH', 'queues:default', '{"uuid":"UUID2","job":"X","id":"ID2","attempts":0}'],
      ],
      [['ZREM', 'queues:default:reserved', '{"uuid":"UUID1","job":"X","id":"ID1","attempts":0}']],
      [['SET', 'cache', 'QqQqQqQqQqQqQqQqQqQqQqQqQqQqQqQq']],
    ]);
  });

  it('keeps every other byte of a client payload: \\/ and \\u0000 escapes, key order', () => {
    const raw = String.raw`{"job":"A\/B","data":{"command":"O:1:\"X\":1:{s:6:\"\u0000*\u0000job\";N;}"},"id":"${ID_A}","attempts":0}`;
    const n = normaliseTrace(trace([[client('dispatcher', 'RPUSH', 'q', raw)]]));
    expect(n.steps[0]!.commands[0]!.args[2]).toBe(
      String.raw`{"job":"A\/B","data":{"command":"O:1:\"X\":1:{s:6:\"\u0000*\u0000job\";N;}"},"id":"ID1","attempts":0}`,
    );
  });
});

describe('serialized PHP strings', () => {
  // s:N counts bytes. An id replaced inside s:32:"<id>" becomes s:3:"ID1"; a string holding it
  // shrinks by 29 bytes plus the one digit its inner length lost (32 → 3).
  it('rewrites s:N lengths, nested ones included, counting UTF-8 bytes', () => {
    const r = new Replacements(START);
    r.knownIds.add(ID_A);
    // é is 2 bytes: "é " + id = 35 bytes; "é " + "ID1" = 6 bytes.
    expect(normaliseString(`a:1:{s:2:"id";s:35:"é ${ID_A}";}`, r)).toBe('a:1:{s:2:"id";s:6:"é ID1";}');
    // Inner: s:32:"<id>"; is 40 bytes, held by an outer s:40; after it is s:3:"ID1"; (10 bytes).
    const inner = `s:32:"${ID_A}";`;
    expect(inner.length).toBe(40);
    expect(normaliseString(`O:1:"X":1:{s:3:"job";s:40:"${inner}";}`, r)).toBe(
      'O:1:"X":1:{s:3:"job";s:10:"s:3:"ID1";";}',
    );
    // A time in an i: value is rewritten; lengths of strings that did not change are left alone.
    expect(normaliseString('a:2:{s:5:"delay";i:1700000060;s:4:"name";s:3:"abc";}', r)).toBe(
      'a:2:{s:5:"delay";i:T+60;s:4:"name";s:3:"abc";}',
    );
  });

  it('does the same inside a JSON payload, on the decoded bytes, without touching the JSON escaping', () => {
    // data.command holds "s:32:\"<id>\";": in the raw JSON the quotes are escaped, the length is in bytes of the decoded string.
    const raw = String.raw`{"job":"X","data":{"command":"O:1:\"X\":2:{s:2:\"id\";s:32:\"${ID_A}\";s:1:\"q\";s:2:\"\u00e9\";}"},"id":"${ID_A}","attempts":0}`;
    const n = normaliseTrace(trace([[client('dispatcher', 'RPUSH', 'q', raw)]]));
    expect(n.steps[0]!.commands[0]!.args[2]).toBe(
      String.raw`{"job":"X","data":{"command":"O:1:\"X\":2:{s:2:\"id\";s:3:\"ID1\";s:1:\"q\";s:2:\"\u00e9\";}"},"id":"ID1","attempts":0}`,
    );
  });
});

describe('cjson re-encoded copies', () => {
  // The dispatched payload (PHP key order) goes in by RPUSH; the pop script's cjson copy
  // (attempts 1) is ZADDed by Lua and later ZREMed by the client with exactly those bytes.
  // Two Redis builds whose cjson orders keys differently must give the same normalised trace.
  const copyA = `{"maxTries":null,"id":"${ID_A}","timeout":null,"attempts":1,"job":"X","timeoutAt":1700000030}`;
  const copyB = `{"job":"X","timeoutAt":1700000030,"attempts":1,"timeout":null,"maxTries":null,"id":"${ID_A}"}`;
  const run = (copy: string) =>
    trace([
      [
        client(
          'dispatcher',
          'RPUSH',
          'queues:default',
          `{"job":"X","maxTries":null,"timeout":null,"timeoutAt":1700000030,"id":"${ID_A}","attempts":0}`,
        ),
      ],
      [
        client('worker-1', 'EVAL', 'pop', '2', 'queues:default', 'queues:default:reserved', '1700000090'),
        lua('worker-1', 'lpop', 'queues:default'),
        lua('worker-1', 'zadd', 'queues:default:reserved', '1700000090', copy),
      ],
      [client('worker-1', 'ZREM', 'queues:default:reserved', copy)],
    ]);

  it('compares them as parsed JSON (sorted keys), the client ZREM of the copy included', () => {
    const a = normaliseTrace(run(copyA));
    const b = normaliseTrace(run(copyB));
    const sorted = '{"attempts":1,"id":"ID1","job":"X","maxTries":null,"timeout":null,"timeoutAt":"T+30"}';
    expect(a.steps[1]!.commands[2]!.args[3]).toBe(sorted);
    expect(a.steps[2]!.commands[0]!.args[2]).toBe(sorted);
    expect(isIdentical(diffTraces(a, b))).toBe(true);
    // A golden written from one build passes against the other.
    expect(formatGolden(b)).toBe(formatGolden(a));
    expect(isIdentical(diffTraces(parseGolden(formatGolden(a)), b))).toBe(true);
  });

  it('still compares client-sent payloads byte for byte: PHP key order is part of the wire', () => {
    const a = normaliseTrace(trace([[client('dispatcher', 'RPUSH', 'q', `{"job":"X","id":"${ID_A}","attempts":0}`)]]));
    const b = normaliseTrace(trace([[client('dispatcher', 'RPUSH', 'q', `{"id":"${ID_A}","job":"X","attempts":0}`)]]));
    expect(isIdentical(diffTraces(a, b))).toBe(false);
  });

  it('sees a real change in a copy (attempts) through the reordering', () => {
    const a = normaliseTrace(run(copyA));
    const b = normaliseTrace(run(copyB.replace('"attempts":1', '"attempts":2')));
    expect(diffTraces(a, b).changed).toBe(2);
  });
});

describe('steps, prefix and sources', () => {
  it('drops steps without commands, strips the key prefix from whole keys and records it', () => {
    const n = normaliseTrace({
      start: START,
      prefix: 'laravel_database_',
      meta: { scenario: 's' },
      steps: [
        { actor: 'worker-1', title: 'process', commands: [] },
        {
          actor: 'worker-1',
          index: 7,
          t: START + 60,
          title: 'delete',
          commands: [client('worker-1', 'ZREM', 'laravel_database_queues:default:reserved', 'laravel_database_x y')],
        },
      ],
    });
    expect(n).toEqual({
      meta: { scenario: 's', prefix: 'laravel_database_' },
      steps: [
        {
          index: 7,
          t: 'T+60',
          actor: 'worker-1',
          title: 'delete',
          commands: [{ source: 'client', db: 0, args: ['ZREM', 'queues:default:reserved', 'x y'] }],
        },
      ],
    });
  });

  it('fromTimeline keeps actors, titles, script names and the profile', () => {
    const n = normaliseTrace(fromTimeline(timelineFixture()));
    expect(n.meta).toEqual({ scenario: 'timeout-max-attempts', profile: '5.7' });
    expect(n.steps[0]).toMatchObject({ index: 0, t: 'T+0', actor: 'dispatcher' });
    expect(n.steps[1]!.commands.find((c) => c.script === 'pop')?.args.at(-1)).toBe('T+90');
  });

  it('names raw capture clients in first-seen order, lua lines belonging to the client before them', () => {
    const lines = [
      '1700000000.000001 [0 127.0.0.1:5001] "RPUSH" "queues:default" "{}"',
      '1700000000.100000 [0 127.0.0.1:5002] "EVAL" "x" "0"',
      '1700000000.100001 [0 lua] "lpop" "queues:default"',
      '1700000001.000000 [0 127.0.0.1:5001] "RPUSH" "queues:default" "{}"',
    ].map(parseMonitorLine);
    expect([...actorsFromAddresses(lines)]).toEqual([
      ['127.0.0.1:5001', 'client-1'],
      ['127.0.0.1:5002', 'client-2'],
    ]);
    const named = actorsFromAddresses(lines, new Map([['127.0.0.1:5002', 'worker-1']]));
    expect(named.get('127.0.0.1:5001')).toBe('client-1');
    const t = fromMonitorLines(lines, { actors: new Map([['127.0.0.1:5001', 'dispatcher']]) });
    expect(t.start).toBe(START);
    expect(t.steps.map((s) => [s.actor, s.commands.map((c) => `${c.source}:${c.args[0]}`)])).toEqual([
      ['dispatcher', ['client:RPUSH']],
      ['client-1', ['client:EVAL', 'lua:lpop']],
      ['dispatcher', ['client:RPUSH']],
    ]);
    expect(
      inferPrefix([{ actor: 'a', commands: [client('a', 'RPUSH', 'laravel_database_queues:default', '{}')] }]),
    ).toBe('laravel_database_');
  });
});

describe('golden text', () => {
  it('reads back exactly what it wrote, awkward arguments included', () => {
    const n: NormalisedTrace = {
      meta: { scenario: 'x', profile: '8' },
      steps: [
        {
          index: 3,
          t: 'T+60',
          actor: 'worker-1',
          title: 'a title\nover two lines',
          commands: [
            {
              source: 'client',
              db: 0,
              args: [
                'SET',
                '',
                'a b',
                '{not json',
                '[lua]',
                '#x',
                'back\\slash',
                'q"uote',
                '\x1b[31m',
                payload('ID1', 0),
              ],
            },
            { source: 'lua', db: 2, args: ['rpush', 'k', '{"a":"} {","b":[1,{"c":"\\""}]}'] },
          ],
        },
      ],
    };
    const text = formatGolden(n);
    expect(text).not.toContain('\x1b');
    expect(text).toContain('step 3 T+60 worker-1  # a title over two lines\n');
    expect(text).toContain('  [lua] [db 2] rpush k {"a":"} {","b":[1,{"c":"\\""}]}');
    const back = parseGolden(text);
    expect(back.steps[0]!.commands).toEqual(n.steps[0]!.commands);
    expect(back.meta).toEqual(n.meta);
    expect(parseGolden(text.replace(/\n/g, '\r\n'))).toEqual(back);
    expect(() => parseGolden('step 0 - a\n')).toThrow(/line 1: not a golden trace/);
    expect(() => parseGolden(`${text}  SET "open\n`)).toThrow(/line \d+: unterminated string/);
  });
});

describe('golden text and cjson key order', () => {
  it('reads a golden whose cjson copies have another key order (hand-edited, or another cjson) as the same trace', () => {
    const sorted = '{"attempts":1,"id":"ID1","job":"X"}';
    const other = '{"job":"X","attempts":1,"id":"ID1"}';
    const written: NormalisedTrace = {
      meta: {},
      steps: [
        {
          index: 0,
          actor: 'worker-1',
          commands: [
            { source: 'lua', db: 0, args: ['zadd', 'r', 'T+90', sorted] },
            { source: 'client', db: 0, args: ['ZREM', 'r', sorted] },
          ],
        },
      ],
    };
    const edited = formatGolden(written).split(sorted).join(other);
    expect(edited).toContain(`ZREM r ${other}`);
    expect(isIdentical(diffTraces(parseGolden(edited), written))).toBe(true);
    // A client payload that is no cjson copy keeps its bytes, key order included.
    const client = formatGolden({
      meta: {},
      steps: [{ index: 0, actor: 'd', commands: [{ source: 'client', db: 0, args: ['RPUSH', 'q', other] }] }],
    });
    expect(parseGolden(client).steps[0]!.commands[0]!.args[2]).toBe(other);
  });
});

describe('golden text, any argument', () => {
  it('reads back every client argument byte for byte, and never writes a terminal-unsafe character', () => {
    const arg = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.json(), // JSON texts, objects included: written as themselves when safe
      fc.constantFrom('', ' ', '{', '}', '"', '\\', '[lua]', '[db 1]', '#', '  # x', '{"a":"\\u001b"}'),
    );
    fc.assert(
      fc.property(fc.array(arg, { minLength: 1, maxLength: 6 }), (args) => {
        const n: NormalisedTrace = {
          meta: {},
          steps: [{ index: 0, actor: 'worker-1', commands: [{ source: 'client', db: 0, args }] }],
        };
        const text = formatGolden(n);
        expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u);
        expect(parseGolden(text).steps[0]!.commands[0]!.args).toEqual(args);
      }),
      { numRuns: 500 },
    );
  });
});

describe('golden meta values that one line cannot carry as they are', () => {
  it.each([
    ['a key prefix with a tab', 'app\tqueue:'],
    ['a newline', 'two\nlines'],
    ['a leading quote', '"quoted'],
    ['an escape byte', 'x\u001by'],
  ])('%s round-trips exactly', (_what, prefix) => {
    const trace: NormalisedTrace = { meta: { scenario: 'x', prefix }, steps: [] };
    const back = parseGolden(formatGolden(trace));
    expect(back.meta.prefix).toBe(prefix);
    expect(
      formatGolden(trace)
        .split('\n')
        .filter((l) => l.startsWith('# prefix')),
    ).toHaveLength(1);
  });

  it('a plain value is written as it is', () => {
    expect(formatGolden({ meta: { prefix: 'laravel_database_' }, steps: [] })).toContain(
      '# prefix: laravel_database_\n',
    );
  });
});
