import { supportsColor } from 'chalk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { colourLevel, makeChalk } from '../../src/output/colour.ts';
import { describePayload, relTime, summarizeArgs } from '../../src/output/describe.ts';
import { commandToJson, renderNdjson } from '../../src/output/ndjson.ts';
import { renderStepText, renderText, renderTextFooter, renderTextHeader } from '../../src/output/text.ts';
import type { TraceCommand } from '../../src/scenarios/timeline.ts';
import { DISPATCHED_PAYLOAD, JOB_ID, START, reservedPayload, timelineFixture } from '../fixtures/timeline-fixture.ts';

const plain = makeChalk(0);
const coloured = makeChalk(1);
const ESC = '\x1b';
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const labels = new Map([[JOB_ID, 'SlowJob#1']]);

function cmd(args: string[], extra: Partial<TraceCommand> = {}): TraceCommand {
  return {
    step: 0,
    t: START,
    actor: 'worker-1',
    process: 1,
    source: 'client',
    db: 0,
    args,
    time: '1700000000.000001',
    ...extra,
  };
}

// Written by hand from the fixture (width 80), not captured from the renderer.
const EXPECTED_TEXT = String.raw`timeout-max-attempts: A job longer than --timeout is failed on its next pop
Laravel 5.7 profile, Redis 7.2.4 at 127.0.0.1:6379

#0  t+0s    dispatcher  dispatch: SlowJob#1 onto queues:default
    PendingDispatch::__destruct → Dispatcher::dispatchToQueue → RedisQueue::push
    SELECT 0
    RPUSH queues:default ‹SlowJob#1 attempts:0›
#1  t+0s    worker-1    pop: reserved SlowJob#1 (attempts 1)
    Worker::getNextJob → RedisQueue::pop → RedisQueue::migrate → RedisQueue::retrieveNextJob
    why: Each poll first moves due jobs from :delayed and expired ones from
         :reserved back to the queue.
    EVAL ‹migrateExpiredJobs› 2 queues:default:delayed queues:default 1700000000
      [lua] zrangebyscore queues:default:delayed -inf 1700000000
    EVAL ‹migrateExpiredJobs› 2 queues:default:reserved queues:default 1700000000
      [lua] zrangebyscore queues:default:reserved -inf 1700000000
    EVAL ‹pop› 2 queues:default queues:default:reserved 1700000090
      [lua] lpop queues:default
      [lua] zadd queues:default:reserved 1700000090 ‹SlowJob#1 attempts:1›
#2  t+60s   worker-1    kill: SIGALRM after --timeout=60 while running SlowJob#1
    Worker::registerTimeoutHandler → Worker::kill
    note: The worker process is gone, but SlowJob#1 is still in
          queues:default:reserved: nothing tells Redis. It comes back only after
          retry_after (90s) has passed.
#3  t+93s   worker-1    fail: SlowJob#1 attempts 2 > --tries=1: MaxAttemptsExceededException
    Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts → Worker::failJob → RedisQueue::deleteReserved
    ZREM queues:default:reserved ‹SlowJob#1 attempts:2›

jobs: 1 (1 failed)
  SlowJob#1  failed     1 execution   App\Jobs\SlowJob on redis/default
failed jobs: 1
  SlowJob#1 at t+93s on redis/default
    Illuminate\Queue\MaxAttemptsExceededException: App\Jobs\SlowJob has been
    attempted too many times or run too long. The job may have previously timed
    out.
`;

describe('colourLevel', () => {
  it('lets a non-empty NO_COLOR win over a TTY and over FORCE_COLOR', () => {
    expect(colourLevel({ isTTY: true }, { NO_COLOR: '1' })).toBe(0);
    expect(colourLevel({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '3' })).toBe(0);
  });
  it('ignores an empty NO_COLOR', () => {
    expect(colourLevel({ isTTY: false }, { NO_COLOR: '', FORCE_COLOR: '2' })).toBe(2);
  });
  it('reads FORCE_COLOR the way chalk does, with or without a TTY', () => {
    expect(colourLevel({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(0);
    expect(colourLevel({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(1);
    expect(colourLevel({}, { FORCE_COLOR: '3' })).toBe(3);
    expect(colourLevel({}, { FORCE_COLOR: '9' })).toBe(3);
    expect(colourLevel({}, { FORCE_COLOR: 'true' })).toBe(1);
    expect(colourLevel({}, { FORCE_COLOR: '' })).toBe(1);
    expect(colourLevel({ isTTY: true }, { FORCE_COLOR: 'false' })).toBe(0);
  });
  it("uses chalk's detection on a TTY and no colour on a pipe", () => {
    expect(colourLevel({ isTTY: true }, {})).toBe(supportsColor === false ? 0 : supportsColor.level);
    expect(colourLevel({ isTTY: false }, {})).toBe(0);
    expect(colourLevel({}, { FORCE_COLOR: 'yes' })).toBe(0);
  });
  it('makeChalk fixes the level', () => {
    expect(makeChalk(0).red('x')).toBe('x');
    expect(makeChalk(1).red('x')).toBe('\x1b[31mx\x1b[39m');
  });
});

describe('describePayload', () => {
  it('labels a known job and reads attempts, in either key order', () => {
    expect(describePayload(DISPATCHED_PAYLOAD, labels)).toEqual({ label: 'SlowJob#1', attempts: 0 });
    expect(describePayload(reservedPayload(3), labels)).toEqual({ label: 'SlowJob#1', attempts: 3 });
  });
  it('falls back to the short class name and the first 6 chars of the id', () => {
    expect(describePayload(DISPATCHED_PAYLOAD, new Map())).toEqual({ label: 'SlowJob#AbCdEf', attempts: 0 });
    const noDisplayName = String.raw`{"job":"Illuminate\\Queue\\CallQueuedHandler@call","data":{"commandName":"App\\Jobs\\SendEmail"},"id":"xyz123456","attempts":1}`;
    expect(describePayload(noDisplayName, new Map())).toEqual({ label: 'SendEmail#xyz123', attempts: 1 });
    const plainJob = '{"job":"App\\\\Handlers\\\\Mailer@send","uuid":"0f1e2d3c-aaaa"}';
    expect(describePayload(plainJob, new Map())).toEqual({ label: 'Mailer#0f1e2d', attempts: null });
  });
  it('looks the label up by uuid too (Laravel 8 payloads carry both)', () => {
    const p = '{"uuid":"u-1","job":"X","id":"unknown","attempts":2}';
    expect(describePayload(p, new Map([['u-1', 'X#1']]))).toEqual({ label: 'X#1', attempts: 2 });
  });
  it('returns null for anything that is not a job payload', () => {
    for (const raw of ['', 'queues:default', '{', '{"id":"a"}', '{"job":"X"}', '[1]', 'null', '{"job":1,"id":"a"}']) {
      expect(describePayload(raw, labels)).toBeNull();
    }
  });
});

describe('summarizeArgs', () => {
  it('names EVAL scripts, tags payloads and quotes the rest', () => {
    expect(summarizeArgs(cmd(['EVAL', 'return 1', '0'], { script: 'pop' }), labels)).toEqual(['EVAL', '‹pop›', '0']);
    expect(summarizeArgs(cmd(['EVAL', 'return 1', '0']), labels)).toEqual(['EVAL', '‹lua script›', '0']);
    expect(summarizeArgs(cmd(['zadd', 'k', '5', reservedPayload(1)], { source: 'lua' }), labels)).toEqual([
      'zadd',
      'k',
      '5',
      '‹SlowJob#1 attempts:1›',
    ]);
    expect(summarizeArgs(cmd(['SET', 'a b', '', 'x"y']), labels)).toEqual(['SET', '"a b"', '""', '"x\\"y"']);
  });
  it('shows a non-UTF-8 arg as bytes', () => {
    expect(summarizeArgs(cmd(['SET', 'k', 'a\xff\xfe'], { binaryArgs: [2] }), labels)).toEqual([
      'SET',
      'k',
      '"a\\xff\\xfe"',
    ]);
  });
});

describe('payload runs', () => {
  const payload = (id: string) =>
    JSON.stringify({
      displayName: 'App\\Jobs\\SendInvoice',
      job: 'Illuminate\\Queue\\CallQueuedHandler@call',
      id,
      attempts: 0,
    });
  const ids = Array.from({ length: 100 }, (_, i) => `id${String(i).padStart(30, '0')}`);
  const labels = new Map(ids.map((id, i) => [id, `SendInvoice#${i + 1}`]));
  const cmd = (n: number): TraceCommand => ({
    step: 1,
    t: START,
    actor: 'worker-1',
    process: 1,
    source: 'lua',
    db: 0,
    time: '0.0',
    args: ['rpush', 'queues:default', ...ids.slice(0, n).map(payload)],
  });

  it('collapses a migrate rpush of 100 payloads into one tag naming the count, first and last', () => {
    expect(summarizeArgs(cmd(100), labels)).toEqual([
      'rpush',
      'queues:default',
      '‹100 jobs: SendInvoice#1 … SendInvoice#100›',
    ]);
  });

  it('keeps up to three payloads one by one', () => {
    expect(summarizeArgs(cmd(3), labels)).toEqual([
      'rpush',
      'queues:default',
      '‹SendInvoice#1 attempts:0›',
      '‹SendInvoice#2 attempts:0›',
      '‹SendInvoice#3 attempts:0›',
    ]);
    expect(summarizeArgs(cmd(4), labels)[2]).toBe('‹4 jobs: SendInvoice#1 … SendInvoice#4›');
  });
});

describe('relTime', () => {
  it('counts whole seconds from the start', () => {
    expect(relTime(START, START)).toBe('t+0s');
    expect(relTime(START + 61, START)).toBe('t+61s');
    expect(relTime(START + 3725, START)).toBe('t+3725s');
    expect(relTime(START - 5, START)).toBe('t-5s');
  });
});

describe('renderNdjson', () => {
  const lines = renderNdjson(timelineFixture()).split('\n');

  it('writes one newline-terminated JSON object per command, in order', () => {
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(10);
    expect(lines.map((l) => (JSON.parse(l) as { step: number }).step)).toEqual([0, 0, 1, 1, 1, 1, 1, 1, 1, 3]);
  });
  it('uses exactly the documented keys in the documented order', () => {
    expect(lines[0]).toBe(
      '{"step":0,"t":1700000000,"actor":"dispatcher","process":1,"source":"client","db":0,"args":["SELECT","0"]}',
    );
    expect(Object.keys(JSON.parse(lines[2]!) as object)).toEqual([
      'step',
      't',
      'actor',
      'process',
      'source',
      'db',
      'args',
      'script',
    ]);
    expect(lines[3]).toBe(
      '{"step":1,"t":1700000000,"actor":"worker-1","process":1,"source":"lua","db":0,"args":["zrangebyscore","queues:default:delayed","-inf","1700000000"]}',
    );
    const sources = lines.map((l) => (JSON.parse(l) as { source: string }).source);
    expect(sources).toEqual(['client', 'client', 'client', 'lua', 'client', 'lua', 'client', 'lua', 'lua', 'client']);
  });
  it('keeps args unescaped (the payload round-trips) and adds binaryArgs last', () => {
    expect((JSON.parse(lines[1]!) as { args: string[] }).args[2]).toBe(DISPATCHED_PAYLOAD);
    const line = commandToJson(cmd(['EVAL', 's', '0'], { script: 'pop', binaryArgs: [1] }));
    expect(line).toBe(
      '{"step":0,"t":1700000000,"actor":"worker-1","process":1,"source":"client","db":0,"args":["EVAL","s","0"],"script":"pop","binaryArgs":[1]}',
    );
  });
  it('never writes terminal controls raw, yet parses back to the same strings', () => {
    const nasty = 'a\x1b[2J\u009b\u202e\u2028z';
    const line = commandToJson(cmd(['SET', 'k', nasty]));
    expect(line).toBe(
      String.raw`{"step":0,"t":1700000000,"actor":"worker-1","process":1,"source":"client","db":0,"args":["SET","k","a\u001b[2J\u009b\u202e\u2028z"]}`,
    );
    expect((JSON.parse(line) as { args: string[] }).args[2]).toBe(nasty);
  });
  it('round-trips any args and leaves no control, bidi or tag character raw', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
    );
    fc.assert(
      fc.property(fc.array(fc.string({ unit }), { minLength: 1, maxLength: 4 }), (args) => {
        const line = commandToJson(cmd(args));
        expect(line).not.toMatch(
          /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]|\udb40[\udc00-\udc7f]/,
        );
        expect((JSON.parse(line) as { args: string[] }).args).toEqual(args);
      }),
    );
  });
  it('is empty for a timeline without commands', () => {
    expect(renderNdjson({ steps: [] })).toBe('');
  });
});

describe('renderText', () => {
  it('renders the fixture as written by hand, without any escape at level 0', () => {
    const text = renderText(timelineFixture(), { chalk: plain, width: 80 });
    expect(text).toBe(EXPECTED_TEXT);
    expect(text).not.toContain(ESC);
  });

  it('is the header, the steps and the footer, so the CLI can stream it', () => {
    const tl = timelineFixture();
    const opts = { chalk: plain, width: 80 };
    const streamed =
      renderTextHeader(tl, opts) +
      tl.steps.map((s) => renderStepText(s, tl, opts)).join('') +
      renderTextFooter(tl, opts);
    expect(streamed).toBe(EXPECTED_TEXT);
  });

  it('prints a step without commands with its header and note', () => {
    const tl = timelineFixture();
    expect(renderStepText(tl.steps[2]!, tl, { chalk: plain, width: 80 })).toBe(
      [
        '#2  t+60s   worker-1    kill: SIGALRM after --timeout=60 while running SlowJob#1',
        '    Worker::registerTimeoutHandler → Worker::kill',
        '    note: The worker process is gone, but SlowJob#1 is still in',
        '          queues:default:reserved: nothing tells Redis. It comes back only after',
        '          retry_after (90s) has passed.',
        '',
      ].join('\n'),
    );
  });

  it('colours only through the chalk it is given', () => {
    const text = renderText(timelineFixture(), { chalk: coloured, width: 80 });
    expect(text).toContain(ESC);
    expect(stripAnsi(text)).toBe(EXPECTED_TEXT);
    expect(text).toContain('\x1b[36mdispatcher  \x1b[39m'); // dispatcher: cyan
    expect(text).toContain('\x1b[32mworker-1    \x1b[39m'); // first worker: green
    expect(text).toContain('    \x1b[1mSELECT\x1b[22m 0\n'); // command names bold
    expect(text).toContain('      \x1b[2m[lua] lpop queues:default\x1b[22m\n'); // lua lines dim
    expect(text).toContain('\x1b[3m\x1b[33mThe worker process is gone'); // notes italic yellow
    expect(text).toContain('\x1b[31mfail: SlowJob#1 attempts 2'); // failures red
  });

  it('defaults to 80 columns and never wraps command lines', () => {
    const tl = timelineFixture();
    expect(renderText(tl, { chalk: plain })).toBe(EXPECTED_TEXT);
    const narrow = renderText(tl, { chalk: plain, width: 40 });
    expect(narrow).toContain('\n    EVAL ‹migrateExpiredJobs› 2 queues:default:delayed queues:default 1700000000\n');
    expect(narrow).toContain('\n    note: The worker process is gone,\n          but SlowJob#1 is still in\n');
  });

  it('escapes control and bidi characters from Redis and from the scenario', () => {
    const tl = timelineFixture();
    const step = tl.steps[3]!;
    step.commands.push({ ...step.commands[0]!, args: ['SET', 'k\u202e', 'a\x1b[2Jb\u202ec'] });
    step.note = 'clear\x1b[2J here';
    step.title = 'fail:\u202e evil';
    tl.warnings.push('bell\x07');
    tl.error = 'boom\x9b31m';
    const text = renderText(tl, { chalk: plain, width: 80 });
    expect(text).not.toContain(ESC);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain(String.raw`    SET "k\u202e" "a\x1b[2Jb\u202ec"` + '\n');
    expect(text).toContain(String.raw`    note: clear\x1b[2J here` + '\n');
    expect(text).toContain(String.raw`worker-1    fail:\u202e evil` + '\n');
    expect(text).toContain(String.raw`warnings:` + '\n' + String.raw`  - bell\x07` + '\n');
    expect(text.endsWith(String.raw`error: boom\u009b31m` + '\n')).toBe(true);
  });

  it('shows every argument verbatim with full: true', () => {
    const text = renderText(timelineFixture(), { chalk: plain, width: 80, full: true });
    expect(text).not.toContain('‹');
    expect(text).toContain(
      String.raw`    RPUSH queues:default "{\"displayName\":\"App\\\\Jobs\\\\SlowJob\",\"job\":\"Illuminate\\\\Queue\\\\CallQueuedHandler@call\",\"maxTries\":null,\"timeout\":null,\"timeoutAt\":null,\"data\":{\"commandName\":\"App\\\\Jobs\\\\SlowJob\",\"command\":\"O:16:\\\"App\\\\Jobs\\\\SlowJob\\\":1:{s:5:\\\"queue\\\";N;}\"},\"id\":\"AbCdEfGhIjKlMnOpQrStUvWxYz012345\",\"attempts\":0}"` +
        '\n',
    );
    expect(text).toContain(
      String.raw`    EVAL "local job = redis.call('lpop', KEYS[1])\nlocal reserved = false\nif(job ~= false) then\n`,
    );
    expect(text).toContain(String.raw`      [lua] zadd queues:default:reserved 1700000090 "{\"maxTries\":null,\"id\":`);
  });

  it('wraps the scenario description under the header', () => {
    const tl = timelineFixture();
    tl.scenario.description = 'Why retry_after must be longer than timeout.\nSee seed 001.';
    tl.profile = 'Laravel 5.3';
    expect(renderTextHeader(tl, { chalk: plain, width: 30 })).toBe(
      [
        'timeout-max-attempts: A job longer than --timeout is failed on its next pop',
        'Laravel 5.3 profile, Redis 7.2.4 at 127.0.0.1:6379',
        'Why retry_after must be longer',
        'than timeout.',
        'See seed 001.',
        '',
        '',
      ].join('\n'),
    );
  });

  it('summarises many jobs and lists warnings and the error', () => {
    const tl = timelineFixture();
    const job = tl.jobs[0]!;
    tl.jobs = Array.from({ length: 25 }, (_, i) => ({
      ...job,
      label: `SlowJob#${i + 1}`,
      id: `id${i}`,
      outcome: i < 24 ? 'succeeded' : 'failed',
    }));
    tl.warnings = ['Redis 2.8 has no UNLINK'];
    tl.error = 'worker-1 crashed';
    const footer = renderTextFooter(tl, { chalk: plain, width: 80 });
    expect(footer).toContain('jobs: 25 (24 succeeded, 1 failed)\n');
    expect(footer).toContain('  SlowJob#20  succeeded  1 execution   App\\Jobs\\SlowJob on redis/default\n');
    expect(footer).not.toContain('SlowJob#21 ');
    expect(footer).toContain('  ... and 5 more\n');
    expect(footer).toContain('warnings:\n  - Redis 2.8 has no UNLINK\n');
    expect(footer.endsWith('error: worker-1 crashed\n')).toBe(true);
  });
});
