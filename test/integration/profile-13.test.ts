// Shipped scenarios replayed with --laravel 13, against a real redis-server: the exact commands,
// derived by hand from Laravel 13.x (reference laravel-versions.md §1.1, §1.3.6, §1.4, §1.5, §2.2,
// §2.3 at v13.26.1; Queue.php, RedisQueue.php, SerializesModels.php, Jobs/Job.php and the 13.x
// skeleton's config/database.php), never from the tool's output.
//
// Conventions of 13.x under the skeleton, used by every expectation below:
// - prefix "laravel-database-" (Str::slug(APP_NAME).'-database-') on KEYS and plain-command keys,
//   never on ARGV; phpredis sends SELECT 0 on every new connection (PhpRedisConnector:
//   `isset($config['database'])`, the skeleton sets '0');
// - every poll: migrate(:delayed), migrate(:reserved), pop script, each migrate taking 3 keys and
//   ARGV [now, migrationBatchSize] with the default batch size -1, so its zrangebyscore reads
//   `-inf <now> limit 0 -1`; the pop takes 3 keys and ARGV now + retry_after, and LPOPs :notify
//   when it reserved a job;
// - push = EVAL push (2 keys, payload) → rpush ready, rpush notify 1; later = EVAL later (1 key,
//   ARGV [now+delay, payload]) → zadd.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenarios/load.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { laravel13 } from '../../src/sim/profiles/laravel-13.ts';
import { runFile, useRedis } from '../helpers/run.ts';
import type { Arg, ArgMatcher, CmdPattern, StepPattern } from '../helpers/trace.ts';
import { at, c, evalScript, expectSteps, lua, payload, same } from '../helpers/trace.ts';

const redis = useRedis();
const SELECT = c('SELECT', '0');
const P = 'laravel-database-';

interface Keys {
  ready: string;
  delayed: string;
  reserved: string;
  notify: string;
}
const keys = (name: string): Keys => ({
  ready: `${P}queues:${name}`,
  delayed: `${P}queues:${name}:delayed`,
  reserved: `${P}queues:${name}:reserved`,
  notify: `${P}queues:${name}:notify`,
});
const Q = keys('default');

/** migrateExpiredJobs($from, $to) at t: 3 keys, ARGV now and -1; `moved` lists the rpush chunks. */
function migrate(from: string, q: Keys, t: number, moved?: Arg[][]): CmdPattern[] {
  const inner = [lua('zrangebyscore', from, '-inf', at(t), 'limit', '0', '-1')];
  if (moved) {
    const n = moved.reduce((s, chunk) => s + chunk.length, 0);
    inner.push(lua('zremrangebyrank', from, '0', String(n - 1)));
    // for i = 1, #val, 100: one rpush of the chunk, then one rpush of 1 onto :notify per job.
    for (const chunk of moved)
      inner.push(lua('rpush', q.ready, ...chunk), ...chunk.map(() => lua('rpush', q.notify, '1')));
  }
  return evalScript('migrateExpiredJobs', [from, q.ready, q.notify], [at(t), '-1'], inner);
}

/** The pop script at t (ARGV now + retry_after); `reserved` is the zadd'ed copy when a job was there. */
function pop(q: Keys, t: number, retryAfter: number, reserved?: Arg): CmdPattern[] {
  const inner = [lua('lpop', q.ready)];
  if (reserved) inner.push(lua('zadd', q.reserved, at(t + retryAfter), reserved), lua('lpop', q.notify));
  return evalScript('pop', [q.ready, q.reserved, q.notify], [at(t + retryAfter)], inner);
}

const emptyPoll = (q: Keys, t: number, retryAfter = 90): CmdPattern[] => [
  ...migrate(q.delayed, q, t),
  ...migrate(q.reserved, q, t),
  ...pop(q, t, retryAfter),
];

/**
 * A payload string equal to `expected` byte for byte once its random uuid and 32-character id are
 * replaced by <uuid> and <id> (Str::uuid() and Str::random(32) differ on every run).
 */
const exactly =
  (expected: string, bind?: string): ArgMatcher =>
  (arg, ctx) => {
    const masked = arg
      .replace(/^\{"uuid":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"/, '{"uuid":"<uuid>"')
      .replace(/"id":"[A-Za-z0-9]{32}"/, '"id":"<id>"');
    if (masked !== expected) return `the payload ${expected}`;
    return bind ? same(bind)(arg, ctx) : null;
  };

const CALL = 'Illuminate\\\\Queue\\\\CallQueuedHandler@call';

/**
 * The 13.x ready-list payload of a make:job class with no own properties, as json_encode writes it
 * (JSON_UNESCAPED_UNICODE; "\" escaped as "\\"; "/" would be "\/"). Key order: createObjectPayload
 * (uuid … retryUntil, deleteWhenMissingModels, data{commandName, command, batchId}, createdAt),
 * RedisQueue::createPayloadArray (id, attempts 0), then createPayload's delay.
 */
const payload13 = (cls: string, command: string, createdAt: number, delay: string, extra = ''): string =>
  `{"uuid":"<uuid>","displayName":"${cls}","job":"${CALL}",` +
  `"maxTries":null,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":null,"retryUntil":null,` +
  `"deleteWhenMissingModels":false,"data":{"commandName":"${cls}","command":"${command}","batchId":null},` +
  `"createdAt":${createdAt},"id":"<id>","attempts":0,"delay":${delay}${extra}}`;

const run = async (name: string): Promise<Timeline> => runFile(await resolveScenario(name), redis(), '13');

async function runInline(yaml: string, laravel?: string): Promise<Timeline> {
  const { spec } = parseScenario(yaml, 'inline.yaml');
  return runScenario(spec, { redis: redis(), laravel });
}

describe('dispatch under --laravel 13', () => {
  it('EVALs the push script with the 13.x payload: createdAt, delay null, deleteWhenMissingModels, batchId, a defaults-free command', async () => {
    const t = await run('dispatch');
    const cls = 'App\\\\Jobs\\\\SendWelcomeEmail';
    // serialize(): every property of SendWelcomeEmail still equals its default (InteractsWithQueue's
    // $job, Queueable's connection … chainCatchCallbacks), so SerializesModels::__serialize returns
    // []: O:25:"App\Jobs\SendWelcomeEmail":0:{} ("App\Jobs\SendWelcomeEmail" = 3+1+4+1+16 = 25 bytes).
    const command = 'O:25:\\"App\\\\Jobs\\\\SendWelcomeEmail\\":0:{}';
    const p = exactly(payload13(cls, command, t.start, 'null'), 'p');
    expectSteps(
      t,
      [
        // A web request: a new phpredis connection (SELECT 0), then RedisQueue::pushRaw's EVAL push.
        {
          actor: 'dispatcher',
          t: 0,
          kind: 'dispatch',
          commands: [
            SELECT,
            ...evalScript(
              'push',
              [Q.ready, Q.notify],
              [p],
              [lua('rpush', Q.ready, same('p')), lua('rpush', Q.notify, '1')],
            ),
          ],
        },
      ],
      laravel13,
    );
    expect(t.steps[0]!.state.queues[0]!.keys.notify).toBe('laravel-database-queues:default:notify');
    expect(t.steps[0]!.state.queues[0]!.sizes).toMatchObject({ ready: 1, delayed: 0, reserved: 0, notify: 1 });
  });
});

describe('dispatch-later under --laravel 13', () => {
  it('EVALs the later script (not ZADD); polls send migrate with ARGV -1; at t+60 the job moves, is reserved and deleted', async () => {
    const t = await run('dispatch-later');
    const cls = 'App\\\\Jobs\\\\SendReminder';
    // ->delay(60) sets Queueable::$delay = 60 ≠ its default null: the only property serialized.
    // "App\Jobs\SendReminder" = 3+1+4+1+12 = 21 bytes. createPayload appends delay = secondsUntil(60) = 60.
    const command = 'O:21:\\"App\\\\Jobs\\\\SendReminder\\":1:{s:5:\\"delay\\";i:60;}';
    const p = exactly(payload13(cls, command, t.start, '60'), 'p');
    const steps: StepPattern[] = [
      // RedisQueue::laterRaw: eval(later(), 1, q:delayed, availableAt(60), $payload) → [lua] zadd.
      {
        actor: 'dispatcher',
        t: 0,
        commands: [
          SELECT,
          ...evalScript('later', [Q.delayed], [at(60), p], [lua('zadd', Q.delayed, at(60), same('p'))]),
        ],
      },
      // The worker's phpredis connection: SELECT 0; nothing is due at t+0 or t+30 (--sleep=30).
      { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 0)] },
      { actor: 'worker-1', t: 30, kind: 'pop', commands: emptyPoll(Q, 30) },
      // t+60: score 60 <= now: zremrangebyrank 0 0, rpush of the unchanged payload, rpush :notify 1;
      // the pop reserves it until t+150 (attempts 1) and LPOPs that notification.
      {
        actor: 'worker-1',
        t: 60,
        kind: 'pop',
        commands: [
          ...migrate(Q.delayed, Q, 60, [[same('p')]]),
          ...migrate(Q.reserved, Q, 60),
          ...pop(Q, 60, 90, payload({ attempts: 1, delay: 60 }, 'r')),
        ],
      },
      // CallQueuedHandler::call → RedisJob::delete → ZREM of the reserved (cjson) copy.
      { actor: 'worker-1', t: 60, kind: 'delete', commands: [c('ZREM', Q.reserved, same('r'))] },
    ];
    expectSteps(t, steps, laravel13);
  });
});

describe('timeout-max-attempts under --laravel 13', () => {
  it('the timeout handler fails the last attempt with TimeoutExceededException (ZREM) before the kill; no restart is needed', async () => {
    const t = await run('timeout-max-attempts');
    const cls = 'App\\\\Jobs\\\\ImportCsv';
    const command = 'O:18:\\"App\\\\Jobs\\\\ImportCsv\\":0:{}';
    expectSteps(
      t,
      [
        {
          actor: 'dispatcher',
          t: 0,
          commands: [
            SELECT,
            ...evalScript(
              'push',
              [Q.ready, Q.notify],
              [exactly(payload13(cls, command, t.start, 'null'), 'p')],
              [lua('rpush', Q.ready, same('p')), lua('rpush', Q.notify, '1')],
            ),
          ],
        },
        {
          actor: 'worker-1',
          t: 0,
          kind: 'pop',
          commands: [
            SELECT,
            ...migrate(Q.delayed, Q, 0),
            ...migrate(Q.reserved, Q, 0),
            ...pop(Q, 0, 90, payload({ attempts: 1 }, 'r1')),
          ],
        },
        // handle() needs 120 s; pcntl_alarm(60) (--timeout) fires first.
        { actor: 'worker-1', t: 0, kind: 'process', commands: [] },
        // SIGALRM handler (10.10+): attempts 1 >= --tries 1, so markJobAsFailedIfWillExceedMaxAttempts
        // → failJob(TimeoutExceededException) → RedisJob::delete → ZREM of the reserved copy; then
        // kill. The queues are empty afterwards, so the scenario ends without a restart.
        { actor: 'worker-1', t: 60, kind: 'kill', commands: [c('ZREM', Q.reserved, same('r1'))] },
      ],
      laravel13,
    );
    // TimeoutExceededException::forJob: "<displayName> has timed out."
    expect(t.failed).toMatchObject([
      {
        exception: 'Illuminate\\Queue\\TimeoutExceededException',
        message: 'App\\Jobs\\ImportCsv has timed out.',
        failedAt: t.start + 60,
      },
    ]);
  });

  it('a job whose reservation expired is failed before it runs: "has been attempted too many times." (10.10+ message)', async () => {
    // No alarm kills worker-1 (--once never arms one), so the job outlives its reservation
    // (retry_after 10) and worker-2 finds it expired: the message of the pre-run check.
    const t = await runInline(`
name: inline
title: inline
laravel: "13"
connections:
  redis: { queue: default, retry_after: 10 }
workers:
  - { name: worker-1, tries: 1, once: true, restart: false }
  - { name: worker-2, tries: 1, start: 10, sleep: 5 }
jobs:
  J:
    class: App\\Jobs\\J
    attempts: [{ run: 30 }]
timeline:
  - { at: 0, dispatch: J }
`);
    // worker-1 (--once, no alarm) reserves it until t+10 and is still running at t+10; worker-2's
    // first poll migrates the expired reservation back and reserves it as attempts 2: attempts 2
    // > tries 1 → markJobAsFailedIfAlreadyExceedsMaxAttempts → MaxAttemptsExceededException.
    expect(t.failed).toMatchObject([
      {
        exception: 'Illuminate\\Queue\\MaxAttemptsExceededException',
        message: 'App\\Jobs\\J has been attempted too many times.',
        failedAt: t.start + 10,
      },
    ]);
  });
});

describe('migrate-chunking under --laravel 13', () => {
  it('250 EVAL later calls; one migrate moves them in rpush chunks of 100, 100, 50, each followed by one notify per job', async () => {
    const t = await run('migrate-chunking');
    const evals = t.steps[0]!.commands.filter((x) => x.source === 'client' && x.args[0] === 'EVAL');
    expect(evals).toHaveLength(250);
    // Equal scores (all due at t+10): the ZSET orders the members by their bytes, so zrangebyscore
    // returns the payloads sorted, not in dispatch order (they are ASCII: JS order is byte order).
    // EVAL <script> 1 <key> <availableAt> <payload>: the payload is argument 5.
    const payloads = evals.map((e) => e.args[5]!);
    const sorted = [...payloads].sort();
    const chunk = (from: number, to: number): Arg[] => sorted.slice(from, to);
    const cls = 'App\\\\Jobs\\\\SendInvoice';
    const command = 'O:20:\\"App\\\\Jobs\\\\SendInvoice\\":1:{s:5:\\"delay\\";i:10;}';
    const laterCalls = payloads.flatMap((pl, i) =>
      evalScript(
        'later',
        [Q.delayed],
        [at(10), exactly(payload13(cls, command, t.start, '10'), `p${i}`)],
        [lua('zadd', Q.delayed, at(10), same(`p${i}`))],
      ),
    );
    expectSteps(
      t,
      [
        { actor: 'dispatcher', t: 0, commands: [SELECT, ...laterCalls] },
        { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...emptyPoll(Q, 0)] },
        {
          actor: 'worker-1',
          t: 10,
          kind: 'pop',
          commands: [
            // limit 0 -1: no batch limit, all 250 at once; zremrangebyrank 0 249.
            ...migrate(Q.delayed, Q, 10, [chunk(0, 100), chunk(100, 200), chunk(200, 250)]),
            ...migrate(Q.reserved, Q, 10),
            ...pop(Q, 10, 90, payload({ id: JSON.parse(sorted[0]!).id, attempts: 1 })),
          ],
        },
        { actor: 'worker-1', t: 10, kind: 'process', commands: [] },
      ],
      laravel13,
    );
    // 250 migrated notifications, one taken by the pop.
    expect(t.steps[2]!.state.queues[0]!.sizes).toMatchObject({ ready: 249, delayed: 0, reserved: 1, notify: 249 });
  });
});

describe('13.x rules the shipped scenarios do not reach', () => {
  const blocking = `
name: inline
title: inline
until: 5
connections:
  redis: { queue: default, retry_after: 90, block_for: 2 }
workers:
  - { name: worker-1, queue: "high,default", sleep: 3 }
jobs:
  J: { class: App\\Jobs\\J }
timeline:
  - { at: 0, dispatch: J, queue: other }
`;
  const H = keys('high');
  const O = keys('other');

  it('--queue=high,default with block_for: only high (index 0) BLPOPs :notify; default (index 1) does not (11.27+)', async () => {
    const t = await runInline(blocking, '13');
    expectSteps(
      t,
      [
        // The job goes to a queue this worker does not watch: only the push reaches Redis.
        {
          actor: 'dispatcher',
          t: 0,
          commands: [
            SELECT,
            ...evalScript(
              'push',
              [O.ready, O.notify],
              [payload({ attempts: 0 })],
              [lua('rpush', O.ready, payload({ attempts: 0 })), lua('rpush', O.notify, '1')],
            ),
          ],
        },
        // pop('high', 0): nothing; $block = ! secondaryQueueHadJob && index == 0 → BLPOP high:notify 2.
        { actor: 'worker-1', t: 0, kind: 'block', commands: [SELECT, ...emptyPoll(H, 0), c('BLPOP', H.notify, '2')] },
        // It times out at t+2; pop('default', 1) finds nothing and, index 1, does not block: sleep 3.
        { actor: 'worker-1', t: 2, kind: 'pop', commands: emptyPoll(Q, 2) },
        // t+5 (--sleep=3): the next loop starts with high again, index 0: it may block again.
        { actor: 'worker-1', t: 5, kind: 'block', commands: [...emptyPoll(H, 5), c('BLPOP', H.notify, '2')] },
      ],
      laravel13,
    );
  });

  it('the same worker under 8 blocks on every queue in turn', async () => {
    const t = await runInline(blocking, '8');
    const K = (n: string) => `laravel_database_queues:${n}`;
    expect(
      t.steps.slice(1, 3).map((s) => s.commands.filter((x) => x.args[0] === 'BLPOP').map((x) => x.args.slice(1))),
    ).toEqual([[[`${K('high')}:notify`, '2']], [[`${K('default')}:notify`, '2']]]);
  });

  it('Job::backoff() falls back to the payload delay: a job dispatched with delay 5 is released for 5 s, not --backoff 0', async () => {
    const t = await runInline(`
name: inline
title: inline
laravel: "13"
workers:
  - { name: worker-1, tries: 2, sleep: 5 }
jobs:
  J:
    class: App\\Jobs\\J
    attempts: [{ throw: boom }, succeed]
timeline:
  - { at: 0, dispatch: J, delay: 5 }
`);
    // t+5: attempt 1 throws; attempts 1 < tries 2 → release(calculateBackoff): backoff() =
    // payload backoff (null) ?? payload delay (5) → "5" → explode → [5][attempts - 1] = 5.
    const release = t.steps.find((s) => s.kind === 'release')!;
    expect(release.t - t.start).toBe(5);
    expectSteps(
      { ...t, steps: [release] },
      [
        {
          actor: 'worker-1',
          t: 5,
          kind: 'release',
          commands: evalScript(
            'release',
            [Q.delayed, Q.reserved],
            [same('r'), at(10)],
            [lua('zrem', Q.reserved, same('r')), lua('zadd', Q.delayed, at(10), same('r'))],
          ),
        },
      ],
      laravel13,
    );
  });
});
