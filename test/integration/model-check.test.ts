// The model is checked against Redis as it runs: a client the run does not know about that takes a
// job (an LPOP between steps, a ZREM of the reserved copy, an app's queue:work blocked in BLPOP
// before the run began) makes a reply or a queue's size contradict the model, and the run ends
// with timeline.error naming the command, what the model expected and what Redis answered. A ZREM
// that legitimately removes nothing (another worker re-reserved the job) is no error. Expected
// messages are written from the scenarios by hand: which job, who pushed it when, which command.
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import type { RedisServer } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import type { RunOptions } from '../../src/scenarios/runner.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Step, Timeline } from '../../src/scenarios/timeline.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();

async function thiefOn(server: RedisServer) {
  const client = createClient({ socket: { host: server.host, port: server.port }, RESP: 2 });
  client.on('error', () => undefined);
  await client.connect();
  // What an earlier test's run left (a run flushes only when it starts) is not the app's to take.
  await client.flushAll();
  return client;
}

async function run(name: string, opts: Partial<RunOptions> = {}): Promise<Timeline> {
  const file = await resolveScenario(name);
  const { spec } = await loadScenarioFile(file);
  return runScenario(spec, { redis: redis(), file, ...opts });
}

const isPush = (s: Step) => s.commands.some((c) => c.args[0] === 'RPUSH' || c.script === 'push');

describe('a client that takes a job mid-run ends the run with the difference named', () => {
  it('an LPOP of queues:default between the push and the pop: the pop returned nothing (success, 5.7)', async () => {
    const thief = await thiefOn(redis());
    let stolen: string | null = null;
    try {
      const timeline = await run('success', {
        onStep: async (step) => {
          if (stolen === null && isPush(step)) stolen = await thief.lPop('queues:default');
        },
      });
      expect(stolen).toContain('App\\\\Jobs\\\\ResizeImage');
      // worker-1 polls at t+0 after the request: its pop script finds nothing where ResizeImage#1 was.
      expect(timeline.error).toMatch(
        /^worker-1's pop \(EVAL ‹pop› 2 queues:default queues:default:reserved \d+\) returned nothing, but queues:default should hold ResizeImage#1 \(attempts 0\) first \(pushed at t\+0s by dispatcher\): another client took it \(an app's queue:work on this server\?\); the trace is no longer Laravel's alone, so the run stops$/,
      );
      // The steps before the fault are kept, and no pop of a job happened.
      expect(timeline.steps.length).toBeGreaterThan(0);
      expect(timeline.jobs[0]!.label).toBe('ResizeImage#1');
    } finally {
      await thief.quit();
    }
  });

  it('an LPOP of the first of two jobs: the pop returned another job than the model expected (block-for-wakeup, 8)', async () => {
    const thief = await thiefOn(redis());
    let stolen: string | null = null;
    try {
      const timeline = await run('block-for-wakeup', {
        // The request at t+3 pushes BuildReport#1 and #2 onto reports; worker-a (--once) polls next.
        onStep: async (step) => {
          if (stolen === null && step.title.includes('BuildReport'))
            stolen = await thief.lPop('laravel_database_queues:reports');
        },
      });
      expect(stolen).toContain('App\\\\Jobs\\\\BuildReport');
      expect(timeline.error).toMatch(
        /^worker-a's pop \(EVAL ‹pop› 3 laravel_database_queues:reports laravel_database_queues:reports:reserved laravel_database_queues:reports:notify 1700000093\) returned BuildReport#2 \(attempts 0\), but laravel_database_queues:reports should hold BuildReport#1 \(attempts 0\) first \(pushed at t\+3s by dispatcher\): another client took BuildReport#1 \(attempts 0\) first \(an app's queue:work on this server\?\);/,
      );
    } finally {
      await thief.quit();
    }
  });

  it('a ZREM of the reserved copy before the worker deletes it: ZREM removed 0 where 1 was expected', async () => {
    const thief = await thiefOn(redis());
    let removed = 0;
    try {
      const timeline = await run('success', {
        // Just before worker-1's delete at t+2 (handle() runs 2 s), so no step's end reads the sizes in between.
        onStep: async (_step, sofar, info) => {
          if (removed > 0 || (await info.nextAt()) !== sofar.start + 2) return;
          for (const m of await thief.zRange('queues:default:reserved', 0, -1))
            removed += await thief.zRem('queues:default:reserved', m);
        },
      });
      expect(removed).toBe(1);
      expect(timeline.error).toMatch(
        /^worker-1's delete \(ZREM queues:default:reserved ‹ResizeImage#1 \(attempts 1\)›\) returned 0, but queues:default:reserved should hold that copy \(reserved at t\+0s by worker-1\), so ZREM removes 1: another client removed it/,
      );
    } finally {
      await thief.quit();
    }
  });

  it("a ZADD to :delayed by another client: the next migrate's reply (sent ahead) names it (dispatch-later, 5.7)", async () => {
    const thief = await thiefOn(redis());
    let added = false;
    try {
      const foreign = '{"job":"Foreign","data":{},"attempts":0}';
      const timeline = await run('dispatch-later', {
        onStep: async (step) => {
          if (added || step.index !== 0) return;
          added = (await thief.zAdd('queues:default:delayed', { score: 1, value: foreign })) === 1;
        },
      });
      expect(added).toBe(true);
      // Step 0 is the request's ZADD (due at t+60). worker-1's first poll at t+0 migrates what is due
      // at 1700000000: the model has nothing due, Redis the foreign job (score 1). The migrate's reply
      // arrives after the pop was sent; the pop's own difference (a job where none should be) is
      // reported after the earlier one.
      expect(timeline.error).toBe(
        `worker-1's migrateExpiredJobs (EVAL ‹migrateExpiredJobs› 2 queues:default:delayed queues:default 1700000000) returned [a payload this run did not dispatch (${JSON.stringify(foreign)})], but nothing on queues:default:delayed should be due: another client added to queues:default:delayed; the trace is no longer Laravel's alone, so the run stops`,
      );
    } finally {
      await thief.quit();
    }
  });

  it("an RPUSH by another client that no reply shows: the sizes read at the step's end differ (success, 5.7)", async () => {
    const thief = await thiefOn(redis());
    let pushed = 0;
    try {
      const timeline = await run('success', {
        // After worker-1's pop at t+0: it pops nothing more until handle() returns at t+2, so only
        // the next step's end, which reads the sizes, can see the foreign job.
        onStep: async (step) => {
          if (pushed === 0 && step.commands.some((c) => c.script === 'pop'))
            pushed = await thief.rPush('queues:default', '{"job":"Foreign","data":{},"attempts":0}');
        },
      });
      expect(pushed).toBe(1);
      expect(timeline.error).toMatch(
        /^at the end of step \d+ \(t\+[02]s, worker-1\), LLEN queues:default returned 1, but queues:default should hold 0 jobs: another client added a job to it; the trace is no longer Laravel's alone, so the run stops$/,
      );
      // The step whose end showed it is kept, with the sizes Redis had.
      expect(timeline.steps.at(-1)!.state.queues[0]!.sizes.ready).toBe(1);
    } finally {
      await thief.quit();
    }
  });

  it.each([
    ['kept', true],
    ['streamed', false],
  ])(
    "an app's worker blocked in BLPOP queues:default before the run takes the pushed job (block-for, 5.7, steps %s)",
    async (_how, keepSteps) => {
      const app = await thiefOn(redis());
      try {
        // FLUSHALL at the run's start does not unblock it; it was first, so Redis serves it first.
        const taken = app.sendCommand(['BLPOP', 'queues:default', '0'], { timeout: 0 });
        await new Promise((r) => setTimeout(r, 50));
        // A streaming run (keepSteps false) reads the sizes only where the run's end depends on them;
        // the BLPOP's reply is checked all the same.
        const timeline = await run('block-for', { keepSteps });
        expect(String(await taken)).toContain('App\\\\Jobs\\\\PublishPost');
        // worker-1 blocked at t+0 for block_for 5; the push at t+2 went to the app's client; at t+5
        // the BLPOP times out with nil.
        expect(timeline.error).toBe(
          "worker-1's BLPOP queues:default 5 returned nil, but it should have got PublishPost#1 (attempts 0) (pushed at t+2s by dispatcher): another client blocked on queues:default took it (an app's queue:work on this server?); the trace is no longer Laravel's alone, so the run stops",
        );
      } finally {
        app.destroy();
      }
    },
  );

  it("an app's worker blocked in BLPOP queues:default:notify takes the push's notification (block-for-wakeup, 8)", async () => {
    const app = await thiefOn(redis());
    try {
      // Laravel 8's keys carry the default prefix laravel_database_.
      const taken = app.sendCommand(['BLPOP', 'laravel_database_queues:default:notify', '0'], { timeout: 0 });
      await new Promise((r) => setTimeout(r, 50));
      const timeline = await run('block-for-wakeup');
      expect(await taken).toEqual(['laravel_database_queues:default:notify', '1']);
      // The job stays in queues:default (the sizes agree); worker-1's BLPOP, blocked at t+0 for 5,
      // times out at t+5 although the push at t+0.5 notified.
      expect(timeline.error).toBe(
        "worker-1's BLPOP laravel_database_queues:default:notify 5 returned nil, but it should have got the notification \"1\" of PublishPost#1 (attempts 0) (notified at t+0.5s by dispatcher): another client blocked on laravel_database_queues:default:notify took it (an app's queue:work on this server?); the trace is no longer Laravel's alone, so the run stops",
      );
    } finally {
      app.destroy();
    }
  });
});

describe('what Laravel itself does is no difference', () => {
  it("retry-after-vs-timeout: worker-1's ZREM of a copy worker-2 re-reserved removes 0, and the run ends cleanly", async () => {
    const timeline = await run('retry-after-vs-timeout');
    expect(timeline.error).toBeUndefined();
    // The model expected that 0: the ZREM at t+45 is in the trace, and the job ran twice.
    const at45 = timeline.steps.filter((s) => s.t - timeline.start === 45 && s.actor === 'worker-1');
    expect(at45.flatMap((s) => s.commands.map((c) => c.args[0]))).toContain('ZREM');
  });

  it.each(['5.3', '5.7', '8', '13'])(
    'every check holds through a streaming run of migrate-chunking (Laravel %s)',
    async (laravel) => {
      const timeline = await run('migrate-chunking', { laravel, keepSteps: false });
      expect(timeline.error).toBeUndefined();
    },
  );
});
