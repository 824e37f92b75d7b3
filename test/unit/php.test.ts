// PHP's json_encode() (default flags) and serialize(), checked against hand-derived bytes and
// against the real payloads in seed 000 (5.7-era RPUSH) and seed 003 (5.3 MONITOR capture).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { phpJsonEncode, phpSerialize } from '../../src/sim/php.ts';
import type { PhpObject, PhpValue } from '../../src/sim/php.ts';

/** Undo the blog's pretty-printing of seed 000: drop whitespace outside JSON strings. */
function stripJsonLayout(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i]!;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (!/\s/.test(ch)) {
      out += ch;
    }
  }
  return out;
}

/** Undo Redis MONITOR quoting (sdscatrepr): \\ \" \n \r \t \a \b \xHH. */
function unrepr(quoted: string): string {
  return quoted.replace(/\\(x[0-9a-f]{2}|.)/g, (_, e: string) => {
    if (e.startsWith('x') && e.length === 3) return String.fromCharCode(parseInt(e.slice(1), 16));
    return ({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[e] ?? e;
  });
}

const pub = (name: string, value: PhpValue): PhpObject['properties'][number] => ({ name, visibility: 'public', value });
const prot = (name: string, value: PhpValue): PhpObject['properties'][number] => ({
  name,
  visibility: 'protected',
  value,
});

// Seed 000, the RPUSH payload exactly as the blog printed it (its JSON viewer added the spaces).
const SEED_000_RPUSH = String.raw`{ "displayName": "App\\Listeners\\RebateEventListener", "job": "Illuminate\\Queue\\CallQueuedHandler@call", "maxTries": null, "timeout": null, "timeoutAt": null, "data": { "commandName": "Illuminate\\Events\\CallQueuedListener", "command": "O:36:\"Illuminate\\Events\\CallQueuedListener\":7:{s:5:\"class\";s:33:\"App\\Listeners\\RebateEventListener\";s:6:\"method\";s:15:\"onRebateCreated\";s:4:\"data\";a:1:{i:0;O:29:\"App\\Events\\RebateCreatedEvent\":4:{s:11:\"\u0000*\u0000tbkOrder\";O:45:\"Illuminate\\Contracts\\Database\\ModelIdentifier\":3:{s:5:\"class\";s:19:\"App\\Models\\TbkOrder\";s:2:\"id\";i:416;s:10:\"connection\";s:5:\"mysql\";}s:15:\"\u0000*\u0000notifyAdmins\";b:1;s:13:\"\u0000*\u0000manualBind\";b:0;s:6:\"socket\";N;}}s:5:\"tries\";N;s:9:\"timeoutAt\";N;s:7:\"timeout\";N;s:6:\"\u0000*\u0000job\";N;}" }, "id": "iTqpbeDqqFb3VoED2WP3pgmDbLAUQcMB", "attempts": 0 }`;

// Seed 003, the ZADD member of the 5.3 dispatch, exactly as MONITOR printed it (without the outer quotes).
const SEED_003_ZADD_MEMBER = String.raw`{\"job\":\"Illuminate\\\\Queue\\\\CallQueuedHandler@call\",\"data\":{\"commandName\":\"App\\\\Jobs\\\\DelayTestJob\",\"command\":\"O:21:\\\"App\\\\Jobs\\\\DelayTestJob\\\":4:{s:6:\\\"\\u0000*\\u0000job\\\";N;s:10:\\\"connection\\\";N;s:5:\\\"queue\\\";N;s:5:\\\"delay\\\";O:13:\\\"Carbon\\\\Carbon\\\":3:{s:4:\\\"date\\\";s:26:\\\"2017-03-18 01:58:52.000000\\\";s:13:\\\"timezone_type\\\";i:3;s:8:\\\"timezone\\\";s:3:\\\"UTC\\\";}}\"},\"id\":\"q7ss6fRgCbMNHhCv6gOXX0Or7B43blU9\",\"attempts\":1}`;

// The same command, typed by hand from the capture (PHP serialize() output, \0 as a real NUL byte).
const SEED_003_COMMAND =
  'O:21:"App\\Jobs\\DelayTestJob":4:{s:6:"\0*\0job";N;s:10:"connection";N;s:5:"queue";N;s:5:"delay";' +
  'O:13:"Carbon\\Carbon":3:{s:4:"date";s:26:"2017-03-18 01:58:52.000000";s:13:"timezone_type";i:3;s:8:"timezone";s:3:"UTC";}}';

describe('phpJsonEncode: json_encode() with default flags', () => {
  it('encodes scalars and null as PHP does', () => {
    expect(phpJsonEncode(null)).toBe('null');
    expect(phpJsonEncode(true)).toBe('true');
    expect(phpJsonEncode(false)).toBe('false');
    expect(phpJsonEncode(42)).toBe('42');
    expect(phpJsonEncode(0)).toBe('0');
    expect(phpJsonEncode(-7)).toBe('-7');
    expect(phpJsonEncode(1489802343)).toBe('1489802343');
  });

  it('escapes "/" as "\\/" (JSON_UNESCAPED_SLASHES is not set)', () => {
    expect(phpJsonEncode('a/b')).toBe(String.raw`"a\/b"`);
    expect(phpJsonEncode('http://x/y')).toBe(String.raw`"http:\/\/x\/y"`);
    expect(phpJsonEncode({ 'k/1': '/' })).toBe(String.raw`{"k\/1":"\/"}`);
  });

  it('escapes every non-ASCII character as lower-case \\uXXXX (no JSON_UNESCAPED_UNICODE before 8.82)', () => {
    expect(phpJsonEncode('é')).toBe(String.raw`"\u00e9"`);
    expect(phpJsonEncode('café')).toBe(String.raw`"caf\u00e9"`);
    expect(phpJsonEncode('队列')).toBe(String.raw`"\u961f\u5217"`);
    // Outside the BMP: a UTF-16 surrogate pair, each half lower-case.
    expect(phpJsonEncode('😀')).toBe(String.raw`"\ud83d\ude00"`);
    // U+2028/2029 are escaped too (JSON_UNESCAPED_LINE_TERMINATORS only matters with UNESCAPED_UNICODE).
    expect(phpJsonEncode('\u2028\u2029')).toBe(String.raw`"\u2028\u2029"`);
    expect(phpJsonEncode('\u0080\u00ff\uffff')).toBe(String.raw`"\u0080\u00ff\uffff"`);
  });

  it('escapes control characters like PHP: \\b \\f \\n \\r \\t short forms, the rest \\u00xx; DEL stays raw', () => {
    expect(phpJsonEncode('\0')).toBe(String.raw`"\u0000"`);
    expect(phpJsonEncode('\0*\0job')).toBe(String.raw`"\u0000*\u0000job"`);
    expect(phpJsonEncode('\b\f\n\r\t')).toBe(String.raw`"\b\f\n\r\t"`);
    expect(phpJsonEncode('\x01\x1f')).toBe(String.raw`"\u0001\u001f"`);
    expect(phpJsonEncode('\x7f')).toBe('"\x7f"');
  });

  it('escapes backslashes and double quotes', () => {
    expect(phpJsonEncode('App\\Jobs\\Foo')).toBe(String.raw`"App\\Jobs\\Foo"`);
    expect(phpJsonEncode('say "hi"')).toBe(String.raw`"say \"hi\""`);
    expect(phpJsonEncode({ job: 'Illuminate\\Queue\\CallQueuedHandler@call' })).toBe(
      String.raw`{"job":"Illuminate\\Queue\\CallQueuedHandler@call"}`,
    );
  });

  it('keeps key order, nested too, and writes lists as JSON arrays', () => {
    expect(phpJsonEncode({ b: 1, a: { d: null, c: true }, z: [] })).toBe('{"b":1,"a":{"d":null,"c":true},"z":[]}');
    // Laravel 5.3's own QueueRedisQueueTest: json_encode(['job' => 'foo', 'data' => ['data'], 'id' => 'foo', 'attempts' => 1]).
    expect(phpJsonEncode({ job: 'foo', data: ['data'], id: 'foo', attempts: 1 })).toBe(
      '{"job":"foo","data":["data"],"id":"foo","attempts":1}',
    );
  });

  it('reproduces the seed 000 RPUSH payload byte for byte', () => {
    const command = phpSerialize({
      kind: 'object',
      className: 'Illuminate\\Events\\CallQueuedListener',
      properties: [
        pub('class', 'App\\Listeners\\RebateEventListener'),
        pub('method', 'onRebateCreated'),
        pub('data', {
          kind: 'array',
          entries: [
            [
              0,
              {
                kind: 'object',
                className: 'App\\Events\\RebateCreatedEvent',
                properties: [
                  prot('tbkOrder', {
                    kind: 'object',
                    className: 'Illuminate\\Contracts\\Database\\ModelIdentifier',
                    properties: [pub('class', 'App\\Models\\TbkOrder'), pub('id', 416), pub('connection', 'mysql')],
                  }),
                  prot('notifyAdmins', true),
                  prot('manualBind', false),
                  pub('socket', null),
                ],
              },
            ],
          ],
        }),
        pub('tries', null),
        pub('timeoutAt', null),
        pub('timeout', null),
        prot('job', null),
      ],
    });
    const payload = {
      displayName: 'App\\Listeners\\RebateEventListener',
      job: 'Illuminate\\Queue\\CallQueuedHandler@call',
      maxTries: null,
      timeout: null,
      timeoutAt: null,
      data: { commandName: 'Illuminate\\Events\\CallQueuedListener', command },
      id: 'iTqpbeDqqFb3VoED2WP3pgmDbLAUQcMB',
      attempts: 0,
    };
    expect(phpJsonEncode(payload)).toBe(stripJsonLayout(SEED_000_RPUSH));
  });

  it('reproduces the seed 003 (5.3) ZADD member byte for byte', () => {
    const payload = {
      job: 'Illuminate\\Queue\\CallQueuedHandler@call',
      data: { commandName: 'App\\Jobs\\DelayTestJob', command: SEED_003_COMMAND },
      id: 'q7ss6fRgCbMNHhCv6gOXX0Or7B43blU9',
      attempts: 1,
    };
    expect(phpJsonEncode(payload)).toBe(unrepr(SEED_003_ZADD_MEMBER));
  });

  it('always yields pure ASCII with no bare "/" that decodes back to the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = phpJsonEncode(s);
        expect(out).toMatch(/^[\x00-\x7f]*$/);
        expect(out.replace(/\\\\/g, '')).not.toMatch(/[^\\]\//);
        expect(JSON.parse(out)).toBe(s);
      }),
    );
  });
});

describe('phpSerialize: serialize()', () => {
  it('writes scalars and null', () => {
    expect(phpSerialize(null)).toBe('N;');
    expect(phpSerialize(true)).toBe('b:1;');
    expect(phpSerialize(false)).toBe('b:0;');
    expect(phpSerialize(42)).toBe('i:42;');
    expect(phpSerialize(-3)).toBe('i:-3;');
    expect(phpSerialize(0)).toBe('i:0;');
    expect(phpSerialize(0.5)).toBe('d:0.5;');
  });

  it('counts string length in UTF-8 bytes, not characters', () => {
    expect(phpSerialize('hello')).toBe('s:5:"hello";');
    expect(phpSerialize('')).toBe('s:0:"";');
    expect(phpSerialize('é')).toBe('s:2:"é";');
    expect(phpSerialize('队列')).toBe('s:6:"队列";');
    expect(phpSerialize('😀')).toBe('s:4:"😀";');
    // Quotes inside are not escaped: the length alone delimits the string.
    expect(phpSerialize('a"b')).toBe('s:3:"a"b";');
  });

  it('writes arrays with their keys', () => {
    expect(phpSerialize({ kind: 'array', entries: [] })).toBe('a:0:{}');
    expect(phpSerialize({ kind: 'array', entries: [[0, 'data']] })).toBe('a:1:{i:0;s:4:"data";}');
    expect(
      phpSerialize({
        kind: 'array',
        entries: [
          ['a', 1],
          [1, null],
        ],
      }),
    ).toBe('a:2:{s:1:"a";i:1;i:1;N;}');
  });

  it('mangles property names by visibility: public bare, protected \\0*\\0, private \\0Class\\0', () => {
    const obj: PhpValue = {
      kind: 'object',
      className: 'App\\Foo',
      properties: [prot('job', null), pub('queue', 'emails'), { name: 'secret', visibility: 'private', value: 1 }],
    };
    expect(phpSerialize(obj)).toBe(
      'O:7:"App\\Foo":3:{s:6:"\0*\0job";N;s:5:"queue";s:6:"emails";s:15:"\0App\\Foo\0secret";i:1;}',
    );
    expect(phpSerialize({ kind: 'object', className: 'App\\Empty', properties: [] })).toBe('O:9:"App\\Empty":0:{}');
  });

  it('rebuilds the 5.3 DelayTestJob (Carbon delay included) exactly as seed 003 carries it', () => {
    const job: PhpValue = {
      kind: 'object',
      className: 'App\\Jobs\\DelayTestJob',
      properties: [
        prot('job', null),
        pub('connection', null),
        pub('queue', null),
        pub('delay', {
          kind: 'object',
          className: 'Carbon\\Carbon',
          properties: [pub('date', '2017-03-18 01:58:52.000000'), pub('timezone_type', 3), pub('timezone', 'UTC')],
        }),
      ],
    };
    expect(phpSerialize(job)).toBe(SEED_003_COMMAND);
    // And the hand-typed literal is the one the capture carries.
    const fromSeed = JSON.parse(unrepr(SEED_003_ZADD_MEMBER)) as { data: { command: string } };
    expect(fromSeed.data.command).toBe(SEED_003_COMMAND);
  });
});

describe('phpSerialize: floats (serialize_precision = -1, php_gcvt with "E")', () => {
  // Scenario job properties accept any number, so a float property reaches data.command.
  // PHP >= 7.1 writes the shortest round-trip digits, switching to exponent form below 1e-4
  // and at 1e17 and above, always with at least one decimal: serialize(0.00001) is "d:1.0E-5;".
  it('writes plain-range floats like PHP', () => {
    expect(phpSerialize(0.1)).toBe('d:0.1;');
    expect(phpSerialize(-2.5)).toBe('d:-2.5;');
    expect(phpSerialize(0.0001)).toBe('d:0.0001;');
  });

  it('writes exponent-range floats like PHP (1.0E-5, 1.5E-5, 1.0E+25)', () => {
    expect(phpSerialize(0.00001)).toBe('d:1.0E-5;');
    expect(phpSerialize(0.000015)).toBe('d:1.5E-5;');
    expect(phpSerialize(1e25)).toBe('d:1.0E+25;');
    // Beyond PHP_INT_MAX a number can only be a PHP float.
    expect(phpSerialize(1e20)).toBe('d:1.0E+20;');
  });
});
