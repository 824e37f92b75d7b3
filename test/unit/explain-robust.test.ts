// lqsim explain on captures as people's machines make them: the same real Laravel 8.83 flow as
// another server prints it (a unix socket or IPv6 client, CRLF line ends, raw RESP's "+OK", the
// reserved copy's keys in another cjson build's order, as Valkey's builds re-encode them) tells
// the same story; and whole captures cut, spliced and salted with junk never crash it, every line
// ending up a command or a named problem.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CaptureEntry, CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration, ConfigurationReader } from '../../src/explain/configuration.ts';
import { CaptureExplainer, captureTimeline } from '../../src/explain/timeline.ts';

const fixture = (name: string): string[] =>
  readFileSync(new URL(`../fixtures/explain/${name}`, import.meta.url), 'utf8').split('\n');

function explain(raw: string[]) {
  const entries = raw.map((l, i) => captureEntry(l, i + 1)).filter((e): e is CaptureEntry => e !== null);
  const lines = entries.filter((e): e is CapturedLine => !isProblem(e));
  const config = captureConfiguration(lines);
  const { timeline, findings } = captureTimeline(lines, config, { file: 'x' });
  return { entries, config, timeline, findings };
}

/** What explain says, without the clients' addresses. */
const story = (raw: string[]) => {
  const { config, timeline, findings } = explain(raw);
  return {
    titles: timeline.steps.map((s) => `${s.actor} ${s.title}`),
    findings,
    retryAfter: config.retryAfter,
    profiles: config.profiles,
    prefixes: config.prefixes,
  };
};

describe('the same capture as other servers and clients print it', () => {
  const original = fixture('laravel8-ran-twice.txt');
  const expected = story(original);

  it('reads IPv6 clients as connections like any other', () => {
    const clients = new Map<string, string>();
    const ipv6 = original.map((l) =>
      l.replace(/^(\S+ \[\d+ )(127\.0\.0\.1:\d+)\]/, (_, head: string, addr: string) => {
        if (!clients.has(addr)) clients.set(addr, String(clients.size + 1));
        return `${head}[::1]:5${clients.get(addr)}000]`;
      }),
    );
    expect(story(ipv6)).toEqual(expected);
  });

  it('reads a unix socket, where every connection has the one address, without claims on who did what', () => {
    // replicationFeedMonitors prints "[<db> unix:<server.unixsocket>]" for every client on the socket.
    const unix = original.map((l) => l.replace(/^(\S+ \[\d+ )127\.0\.0\.1:\d+\]/, '$1unix:/run/redis/redis.sock]'));
    const { config, timeline, findings } = explain(unix);
    expect(config.connections.map((c) => [c.client, c.role])).toEqual([['unix:/run/redis/redis.sock', 'both']]);
    expect(timeline.scenario.description).toContain(
      'unix socket: unix:/run/redis/redis.sock (from line 2): MONITOR shows every connection over a socket as its path',
    );
    expect(timeline.steps.map((s) => s.title)).toEqual(expected.titles.map((t) => t.replace(/^\S+ /, '')));
    // By hand: the second reservation (25) of a job whose first (13) was never deleted, said
    // without naming workers; the deletes are matched to their reservations by the copy they
    // name (attempt 1's on line 27, attempt 2's on 34), so the timings still read.
    expect(findings.map((f) => f.lines)).toEqual([
      [13, 25],
      [13, 27],
      [25, 34],
    ]);
    expect(findings[0]!.title).toMatch(
      /^ProbeJob#1 reserved again \(attempt 2\) while its reservation \(attempt 1\) had not been deleted or released: .*cannot be told\)$/,
    );
    expect(findings[1]!.title).toMatch(
      /^app-1 finished ProbeJob#1 \(attempt 1\) 5\.0 s after its pop, past its reservation/,
    );
  });

  it('reads CRLF line ends and raw RESP\'s "+OK"', () => {
    const crlf = original.map((l, i) => (i === 0 ? '+OK\r' : `${l}\r`));
    expect(story(crlf)).toEqual(expected);
  });

  it('follows a job whose reserved copy another cjson build wrote with its keys in another order', () => {
    // Valkey's and Redis' builds of lua-cjson order an object's keys differently; the job is the
    // same by its uuid and id.
    const reorder = (json: string): string => {
      const o = JSON.parse(json) as Record<string, unknown>;
      return JSON.stringify(Object.fromEntries(Object.entries(o).reverse()));
    };
    const valkey = original.map((l) => {
      const m = /^(\S+ \[0 lua\] "zadd" "[^"]+" "\d+" )"(.*)"$/.exec(l);
      if (m === null) return l;
      const entry = captureEntry(l, 1) as CapturedLine;
      const payload = reorder(entry.line.args[3]!);
      return `${m[1]}"${payload.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    });
    expect(valkey).not.toEqual(original);
    expect(story(valkey)).toEqual(expected);
  });
});

describe('captures of the Laravel releases after 8', () => {
  it("reads a 9.23-13.x app (the migrate script's 'limit', ARGV[2] -1) as the same story, under profile 13", () => {
    const original = fixture('laravel8-ran-twice.txt');
    // RedisQueue::migrateExpiredJobs since 9.23 (PR #43310): the script reads at most ARGV[2]
    // members, and the skeleton's migration_batch_size (unset) sends -1.
    const newer = original.map((l) =>
      l.includes('"EVAL" "-- Get all of the jobs with an expired')
        ? l
            .replace(
              "redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1])",
              "redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1], 'limit', 0, ARGV[2])",
            )
            .replace(/"(\d+)"$/, '"$1" "-1"')
        : l.replace(/^(\S+ \[0 lua\] "zrangebyscore" .* "\d+")$/, '$1 "limit" "0" "-1"'),
    );
    expect(newer).not.toEqual(original);
    const before = explain(original);
    const after = explain(newer);
    expect(after.config.profiles).toEqual(['13']);
    expect(after.timeline.scenario.description).toMatch(/^Laravel: 9\.23 to 13\.x, profile 13 \(by the text of /m);
    expect(before.timeline.scenario.description).toMatch(/^Laravel: 5\.8 to 9\.22, profile 8 \(by the text of /m);
    expect(after.timeline.steps.map((s) => s.title)).toEqual(before.timeline.steps.map((s) => s.title));
    expect(after.findings).toEqual(before.findings);
  });
});

describe('a capture of a shared Redis', () => {
  /** A capture's lines as blocks (a command and the script lines after it), each with its time. */
  const blocks = (raw: string[]): Array<{ t: number; lines: string[] }> => {
    const out: Array<{ t: number; lines: string[] }> = [];
    for (const l of raw) {
      if (l === '' || l === 'OK') continue;
      if (l.includes(' [0 lua] ') || l.includes(' [1 lua] ')) out.at(-1)!.lines.push(l);
      else out.push({ t: Number(l.slice(0, l.indexOf(' '))), lines: [l] });
    }
    return out;
  };
  /** Two captures as one MONITOR would have printed them, in time order. */
  const merge = (a: string[], b: string[]): string[] => [
    'OK',
    ...[...blocks(a), ...blocks(b)].sort((x, y) => x.t - y.t).flatMap((x) => x.lines),
  ];

  it('tells two apps on two dbs apart from each other and from other clients', () => {
    const ranTwice = fixture('laravel8-ran-twice.txt');
    const t0 = Number(ranTwice[1]!.slice(0, ranTwice[1]!.indexOf(' ')));
    // Another app: the three-job capture moved into the same seconds, on db 1, other clients;
    // and a cache client on db 0 getting and setting its own keys.
    const other = fixture('laravel8-three-jobs.txt')
      .filter((l) => l !== '' && l !== 'OK')
      .map((l, i, all) => {
        const first = Number(all[0]!.slice(0, all[0]!.indexOf(' ')));
        const t = (Number(l.slice(0, l.indexOf(' '))) - first + t0 + 0.5).toFixed(6);
        return `${t}${l
          .slice(l.indexOf(' '))
          .replace('[0 ', '[1 ')
          .replace(/127\.0\.0\.1:(\d+)/, '10.0.0.7:$1')
          .replace('"SELECT" "0"', '"SELECT" "1"')}`;
      });
    const cache = [0.2, 1.2, 4.2].flatMap((d) => [
      `${(t0 + d).toFixed(6)} [0 10.0.0.9:4000] "GET" "laravel_cache:settings"`,
      `${(t0 + d + 0.001).toFixed(6)} [0 10.0.0.9:4000] "SET" "laravel_cache:settings" "{}" "EX" "60"`,
    ]);
    const shared = merge(merge(ranTwice, other).slice(1), cache);
    const { config, timeline, findings } = explain(shared);
    expect(config.dbs.map((d) => d.value)).toEqual([0, 1]);
    expect(config.connections.map((c) => c.role).sort()).toEqual(
      ['dispatcher', 'dispatcher', 'other', 'worker', 'worker', 'worker'].sort(),
    );
    // The app on db 1 is three quiet jobs; the findings are the ran-twice app's alone.
    expect(timeline.jobs.map((j) => j.label)).toEqual([
      'ProbeJob#1',
      'SendInvoice#1',
      'SendInvoice#2',
      'SendInvoice#3',
    ]);
    // Workers are numbered as they first appear: the db-1 app's worker (at +0.6 s) is worker-2, so
    // the ran-twice app's second worker is worker-3; its findings are otherwise the same, same lines.
    const alone = story(ranTwice).findings;
    expect(findings.map((f) => f.title)).toEqual(alone.map((f) => f.title.replaceAll('worker-2', 'worker-3')));
    expect(timeline.steps.filter((s) => s.title.startsWith('other traffic')).map((s) => s.title)).toEqual([
      'other traffic: 2 commands (GET, SET)',
      'other traffic: 2 commands (GET, SET)',
      'other traffic: 2 commands (GET, SET)',
    ]);
  });
});

describe('traffic that is not the queue', () => {
  it('is summarised: a run of it is one step, whoever sent it, each command naming its sender', () => {
    const { timeline } = explain([
      '1700000000.000001 [0 10.0.0.9:4000] "GET" "laravel_cache:a"',
      '1700000000.000002 [0 10.0.0.8:4100] "SET" "laravel_session:x" "1"',
      '1700000000.000003 [0 10.0.0.9:4000] "GET" "laravel_cache:b"',
      '1700000000.000004 [0 10.0.0.5:4001] "RPUSH" "queues:default" "{\\"uuid\\":\\"u1\\",\\"job\\":\\"x\\",\\"attempts\\":0}"',
      '1700000000.000005 [0 10.0.0.8:4100] "DEL" "laravel_session:x"',
    ]);
    expect(timeline.steps.map((s) => [s.actor, s.title])).toEqual([
      ['other-1', 'other traffic: 3 commands (GET, SET) from other-1, other-2'],
      ['dispatcher-1', 'push: x#1 onto default'], // the class from the payload's job, having no displayName
      ['other-2', 'other traffic: 1 command (DEL)'],
    ]);
    expect(timeline.steps[0]!.commands.map((c) => c.actor)).toEqual(['other-1', 'other-2', 'other-1']);
  });
});

describe('whole captures cut, spliced and salted', () => {
  const pool = [
    ...fixture('laravel8-ran-twice.txt'),
    ...fixture('laravel8-timeout-kills.txt'),
    ...fixture('laravel8-three-jobs.txt'),
    ...readFileSync(new URL('../fixtures/seed-003-capture.txt', import.meta.url), 'utf8').split('\n'),
  ].filter((l) => l !== '');

  const line = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pool) },
    // A line cut short (a killed redis-cli, `head -c`), or cut at the front (a split file).
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...pool), fc.nat()).map(([l, n]) => l.slice(0, n % (l.length + 1))),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...pool), fc.nat()).map(([l, n]) => l.slice(n % (l.length + 1))) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
    { weight: 1, arbitrary: fc.constantFrom('OK', '+OK', '', '{', '{"t":1}', '1.5 [0 lua] "zadd"', '0 [x] "a"') },
  );

  it('never crash, and account for every line', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 80 }), (raw) => {
        const { entries, timeline } = explain(raw);
        const commands = entries.filter((e) => !isProblem(e)).length;
        expect(timeline.steps.flatMap((s) => s.commands)).toHaveLength(commands);
        for (const e of entries)
          if (isProblem(e)) expect(e.problem).toMatch(/^not (a MONITOR line|an ndjson command): /);
      }),
      { numRuns: 300 },
    );
  });

  it('read the same streamed as whole', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (raw) => {
        const { timeline, findings } = explain(raw);
        const lines = raw
          .map((l, i) => captureEntry(l, i + 1))
          .filter((e): e is CapturedLine => e !== null && !isProblem(e));
        const reader = new ConfigurationReader();
        for (const l of lines) reader.add(l);
        const titles: string[] = [];
        const streamed = new CaptureExplainer(reader.result(), { file: 'x', onStep: (s) => titles.push(s.title) });
        for (const l of lines) streamed.add(l);
        expect(streamed.finish().findings).toEqual(findings);
        expect(titles).toEqual(timeline.steps.map((s) => s.title));
      }),
      { numRuns: 200 },
    );
  });
});
