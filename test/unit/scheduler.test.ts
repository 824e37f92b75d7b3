// The discrete-event scheduler on its own: no Redis, a fake BlockingOp standing in for BLPOP.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActorContext, BlockingOp, CompletedStep, SchedulerOptions } from '../../src/sim/scheduler.ts';
import { Scheduler, SimulationLimitError } from '../../src/sim/scheduler.ts';
import { secondsBetween } from '../../src/sim/clock.ts';

const T0 = 1_700_000_000;

function scheduler(over: Partial<SchedulerOptions> = {}): Scheduler {
  return new Scheduler({ start: T0, until: null, maxSteps: 1000, ...over });
}

/** Runs to the end and returns the steps as [t - T0, actor, title | null]. */
async function runSteps(s: Scheduler): Promise<Array<[number, string, string | null]>> {
  const steps: CompletedStep[] = [];
  await s.run(async (step) => {
    steps.push(structuredClone(step));
  });
  return steps.map((st) => [st.t - T0, st.actor, st.description?.title ?? null]);
}

const say = (ctx: ActorContext, title: string) => ctx.describe({ kind: 'process', title });

/** A BLPOP stand-in: blocked until serve() (another actor's RPUSH) or cancel() (a timeout). */
class FakeBlpop implements BlockingOp<string> {
  cancels = 0;
  private blocked = true;
  private settle!: (v: string | null) => void;
  readonly result = new Promise<string | null>((resolve) => (this.settle = resolve));

  serve(value: string): void {
    this.blocked = false;
    this.settle(value);
  }

  /** The server's own timeout ran out (real time), with nothing served. */
  expireOnServer(): void {
    this.blocked = false;
    this.settle(null);
  }

  async stillBlocked(): Promise<boolean> {
    return this.blocked;
  }

  async cancel(): Promise<void> {
    this.cancels++;
    if (this.blocked) {
      this.blocked = false;
      this.settle(null);
    }
  }
}

describe('Scheduler: virtual time and steps', () => {
  it('interleaves two sleeping actors by virtual time, one step per activation', async () => {
    const s = scheduler();
    const sleeper = (name: string, every: number) => async (ctx: ActorContext) => {
      for (let i = 0; i < 3; i++) {
        expect(ctx.instant()).toBe(T0 + i * every);
        say(ctx, `${name} ${i}`);
        await ctx.sleep(every);
      }
    };
    s.spawn('A', T0, sleeper('A', 3));
    s.spawn('B', T0, sleeper('B', 2));
    // A wakes at 0, 3, 6 and ends at 9; B at 0, 2, 4 and ends at 6. At 6, A's wake-up was
    // scheduled (during A's step at 3) before B's (during B's step at 4).
    expect(await runSteps(s)).toEqual([
      [0, 'A', 'A 0'],
      [0, 'B', 'B 0'],
      [2, 'B', 'B 1'],
      [3, 'A', 'A 1'],
      [4, 'B', 'B 2'],
      [6, 'A', 'A 2'],
      [6, 'B', null],
      [9, 'A', null],
    ]);
  });

  it('runs equal times in the order they were scheduled, earlier times first', async () => {
    const s = scheduler();
    const order: string[] = [];
    const actor = (name: string) => async () => {
      order.push(name);
    };
    s.spawn('late', T0 + 10, actor('late'));
    s.spawn('c', T0 + 5, actor('c'));
    s.spawn('a', T0 + 5, actor('a'));
    s.spawn('b', T0 + 5, actor('b'));
    await runSteps(s);
    expect(order).toEqual(['c', 'a', 'b', 'late']);
  });

  it('names a step by the last describe() of its activation; none leaves it null', async () => {
    const s = scheduler();
    s.spawn('w', T0, async (ctx) => {
      say(ctx, 'first thought');
      say(ctx, 'what it did');
      await ctx.sleep(1);
      await ctx.sleep(1);
      say(ctx, 'done');
    });
    expect(await runSteps(s)).toEqual([
      [0, 'w', 'what it did'],
      [1, 'w', null],
      [2, 'w', 'done'],
    ]);
  });

  it('ignores describe() from an actor that is not the one running', async () => {
    const s = scheduler();
    let aCtx: ActorContext | null = null;
    s.spawn('A', T0, async (ctx) => {
      aCtx = ctx;
      say(ctx, 'A');
    });
    s.spawn('B', T0 + 1, async (ctx) => {
      say(ctx, 'B');
      say(aCtx!, 'A from inside B');
    });
    expect(await runSteps(s)).toEqual([
      [0, 'A', 'A'],
      [1, 'B', 'B'],
    ]);
  });

  it('sleep(0) makes a new step at the same virtual time, after others already due then', async () => {
    const s = scheduler();
    s.spawn('A', T0, async (ctx) => {
      say(ctx, 'A before');
      await ctx.sleep(0);
      expect(ctx.instant()).toBe(T0);
      say(ctx, 'A after');
    });
    s.spawn('B', T0, async (ctx) => say(ctx, 'B'));
    expect(await runSteps(s)).toEqual([
      [0, 'A', 'A before'],
      [0, 'B', 'B'],
      [0, 'A', 'A after'],
    ]);
  });

  it('a coroutine spawned late runs after everything else at its instant, what arises then too', async () => {
    const s = scheduler();
    // Spawned first, late: after B (spawned later), after A's sleep(0) step (scheduled while the
    // instant runs), before the next instant; two late ones in the order spawned.
    s.spawn('L1', T0 + 5, async (ctx) => say(ctx, 'L1'), true);
    s.spawn('A', T0 + 5, async (ctx) => {
      say(ctx, 'A before');
      await ctx.sleep(0);
      say(ctx, 'A after');
    });
    s.spawn('L2', T0 + 5, async (ctx) => say(ctx, 'L2'), true);
    s.spawn('B', T0 + 5, async (ctx) => say(ctx, 'B'));
    s.spawn('C', T0 + 6, async (ctx) => say(ctx, 'C'));
    expect(await runSteps(s)).toEqual([
      [5, 'A', 'A before'],
      [5, 'B', 'B'],
      [5, 'A', 'A after'],
      [5, 'L1', 'L1'],
      [5, 'L2', 'L2'],
      [6, 'C', 'C'],
    ]);
  });

  it('starts the clock at `start` and reports it through instant()', async () => {
    const s = scheduler();
    expect(s.instant()).toBe(T0);
    s.spawn('A', T0 + 7, async () => undefined);
    await runSteps(s);
    expect(s.instant()).toBe(T0 + 7);
  });
});

describe('Scheduler: instants within a second (the clock counts milliseconds)', () => {
  it('time() is the whole second of instant(): what Laravel reads, while waits run from the exact instant', async () => {
    const s = scheduler();
    const seen: Array<[number, number]> = [];
    s.spawn('W', T0 + 0.5, async (ctx) => {
      seen.push([secondsBetween(T0, ctx.instant()), ctx.time() - T0]);
      await ctx.sleep(3); // Worker::sleep(3) begun at t+0.5
      seen.push([secondsBetween(T0, ctx.instant()), ctx.time() - T0]);
      await ctx.sleep(0.499);
      seen.push([secondsBetween(T0, ctx.instant()), ctx.time() - T0]);
      await ctx.sleep(0.001);
      seen.push([secondsBetween(T0, ctx.instant()), ctx.time() - T0]);
    });
    await runSteps(s);
    expect(seen).toEqual([
      [0.5, 0],
      [3.5, 3],
      [3.999, 3],
      [4, 4],
    ]);
    expect(Number.isInteger(s.time())).toBe(true);
  });

  it('0.1 + 0.2 lands on the same instant as 0.3: equal instants run in the order they were scheduled', async () => {
    const s = scheduler();
    const order: string[] = [];
    // C is spawned first, so at t+0.3 it runs before A's wake-up (scheduled later, at t+0.1 + 0.2).
    s.spawn('C', T0 + 0.3, async () => {
      order.push(`C ${s.instant() - T0}`);
    });
    s.spawn('A', T0 + 0.1, async (ctx) => {
      await ctx.sleep(0.2);
      order.push(`A ${ctx.instant() - T0}`);
    });
    s.spawn('B', T0 + 0.30000000000000004, async () => {
      order.push(`B ${s.instant() - T0}`);
    });
    const steps = await runSteps(s);
    // The instants are canonical (ms / 1000): the three are one number, not 0.30000000000000004.
    expect(new Set(steps.slice(1).map(([t]) => t)).size).toBe(1);
    expect(order.map((o) => o.split(' ')[0])).toEqual(['C', 'B', 'A']);
    expect(steps.map(([, a]) => a)).toEqual(['A', 'C', 'B', 'A']);
  });

  it('until counts to the millisecond: an event at until runs, one a millisecond later does not', async () => {
    const s = scheduler({ until: 1.5 });
    const ran: string[] = [];
    s.spawn('at', T0 + 1.5, async () => void ran.push('at'));
    s.spawn('after', T0 + 1.501, async () => void ran.push('after'));
    await runSteps(s);
    expect(ran).toEqual(['at']);
  });
});

describe('Scheduler: ordering against a simple model', () => {
  it('runs any mix of sleeping actors in (time, scheduling order)', async () => {
    const actors = fc.array(fc.record({ start: fc.nat(5), sleeps: fc.array(fc.nat(4), { maxLength: 6 }) }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(actors, async (specs) => {
        // Model: a plain list scanned for the smallest (at, seq), one wake-up per activation.
        const expected: Array<[number, string]> = [];
        let seq = 0;
        const pending = specs.map((a, i) => ({ at: a.start, seq: seq++, actor: i, next: 0 }));
        while (pending.length > 0) {
          let m = 0;
          for (let j = 1; j < pending.length; j++) {
            const e = pending[j]!;
            if (e.at < pending[m]!.at || (e.at === pending[m]!.at && e.seq < pending[m]!.seq)) m = j;
          }
          const ev = pending.splice(m, 1)[0]!;
          expected.push([ev.at, `a${ev.actor}`]);
          const d = specs[ev.actor]!.sleeps[ev.next];
          if (d !== undefined) pending.push({ at: ev.at + d, seq: seq++, actor: ev.actor, next: ev.next + 1 });
        }

        const s = scheduler();
        specs.forEach((a, i) =>
          s.spawn(`a${i}`, T0 + a.start, async (ctx) => {
            for (const d of a.sleeps) await ctx.sleep(d);
          }),
        );
        const got = (await runSteps(s)).map(([t, actor]) => [t, actor]);
        expect(got).toEqual(expected);
      }),
    );
  });
});

describe('Scheduler: ending a run', () => {
  const ticker = (every: number) => async (ctx: ActorContext) => {
    for (;;) await ctx.sleep(every);
  };

  it('`until` stops before any event later than start + until', async () => {
    const s = scheduler({ until: 10 });
    s.spawn('t4', T0, ticker(4));
    expect((await runSteps(s)).map(([t]) => t)).toEqual([0, 4, 8]);
  });

  it('`until` still runs an event exactly at start + until', async () => {
    const s = scheduler({ until: 10 });
    s.spawn('t5', T0, ticker(5));
    expect((await runSteps(s)).map(([t]) => t)).toEqual([0, 5, 10]);
  });

  it('isDone() ends the run when `until` is null', async () => {
    let steps = 0;
    const s = scheduler({ isDone: () => steps >= 3 });
    s.spawn('t1', T0, ticker(1));
    await s.run(async () => {
      steps++;
    });
    expect(steps).toBe(3);
  });

  it('isDone() is not consulted when `until` is set', async () => {
    let steps = 0;
    const s = scheduler({ until: 5, isDone: () => true });
    s.spawn('t1', T0, ticker(1));
    await s.run(async () => {
      steps++;
    });
    expect(steps).toBe(6); // t = 0..5
  });

  it('ends when nothing is left to run', async () => {
    const s = scheduler();
    s.spawn('once', T0, async (ctx) => say(ctx, 'only step'));
    expect(await runSteps(s)).toEqual([[0, 'once', 'only step']]);
  });

  it('throws SimulationLimitError after maxSteps steps', async () => {
    let steps = 0;
    const s = scheduler({ maxSteps: 5 });
    s.spawn('forever', T0, ticker(1));
    const run = s.run(async () => {
      steps++;
    });
    await expect(run).rejects.toBeInstanceOf(SimulationLimitError);
    await expect(run).rejects.toThrow(/5 steps/);
    expect(steps).toBe(5);
  });

  it('rejects run() with the error of an actor that throws in its first activation', async () => {
    const s = scheduler();
    const boom = new Error('boom');
    s.spawn('bad', T0, async () => {
      throw boom;
    });
    await expect(runSteps(s)).rejects.toBe(boom);
  });

  it('rejects run() with the error of an actor that throws after a sleep', async () => {
    const s = scheduler();
    const boom = new Error('late boom');
    s.spawn('bad', T0, async (ctx) => {
      await ctx.sleep(3);
      throw boom;
    });
    s.spawn('other', T0, ticker(1));
    await expect(runSteps(s)).rejects.toBe(boom);
  });
});

describe('Scheduler: block() with a BlockingOp', () => {
  it('a BLPOP the server timed out in real time still resumes at its virtual deadline, with a warning', async () => {
    const warnings: string[] = [];
    const s = scheduler({ onWarning: (m) => warnings.push(m) });
    const op = new FakeBlpop();
    s.spawn('worker', T0, async (ctx) => {
      say(ctx, 'BLPOP queues:default 5');
      expect(await ctx.block(op, 5)).toBeNull();
      expect(ctx.instant()).toBe(T0 + 5);
      say(ctx, 'resumed');
    });
    // The run is held (a paused TUI) and the server's 5 real seconds run out during t+1's step.
    s.spawn('ticker', T0 + 1, async (ctx) => {
      op.expireOnServer();
      say(ctx, 'tick');
      await ctx.sleep(1);
    });
    expect(await runSteps(s)).toEqual([
      [0, 'worker', 'BLPOP queues:default 5'],
      [1, 'ticker', 'tick'],
      [2, 'ticker', null],
      [5, 'worker', 'resumed'],
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^at t\+1s a blocking command of worker timed out on the server in real time before its virtual deadline t\+5s/,
    );
  });

  it('times out at the virtual deadline: cancel() is called and the actor resumes with null', async () => {
    const s = scheduler();
    const op = new FakeBlpop();
    let got: string | null | undefined;
    s.spawn('worker', T0, async (ctx) => {
      say(ctx, 'BLPOP queues:default 5');
      got = await ctx.block(op, 5);
      expect(ctx.instant()).toBe(T0 + 5);
      say(ctx, `BLPOP returned ${String(got)}`);
    });
    // Another actor keeps stepping while the worker waits; its steps must not wake the worker.
    s.spawn('ticker', T0 + 1, async (ctx) => {
      await ctx.sleep(1);
      await ctx.sleep(1);
    });
    expect(await runSteps(s)).toEqual([
      [0, 'worker', 'BLPOP queues:default 5'],
      [1, 'ticker', null],
      [2, 'ticker', null],
      [3, 'ticker', null],
      [5, 'worker', 'BLPOP returned null'],
    ]);
    expect(got).toBeNull();
    expect(op.cancels).toBe(1);
  });

  it('resumes the blocked actor at the same virtual time as the step that served it; the deadline never fires', async () => {
    const s = scheduler();
    const op = new FakeBlpop();
    let got: string | null | undefined;
    s.spawn('worker', T0, async (ctx) => {
      say(ctx, 'BLPOP queues:default 10');
      got = await ctx.block(op, 10);
      say(ctx, `popped ${String(got)} at t+${ctx.instant() - T0}`);
    });
    s.spawn('dispatcher', T0 + 3, async (ctx) => {
      say(ctx, 'RPUSH queues:default job-1');
      op.serve('job-1');
    });
    // Keep the run going past the old deadline (t+10) to show nothing happens there.
    s.spawn('ticker', T0 + 12, async (ctx) => say(ctx, 'tick'));
    expect(await runSteps(s)).toEqual([
      [0, 'worker', 'BLPOP queues:default 10'],
      [3, 'dispatcher', 'RPUSH queues:default job-1'],
      [3, 'worker', 'popped job-1 at t+3'],
      [12, 'ticker', 'tick'],
    ]);
    expect(got).toBe('job-1');
    expect(op.cancels).toBe(0);
  });

  it('waits without a deadline when seconds is null, until served', async () => {
    const s = scheduler();
    const op = new FakeBlpop();
    s.spawn('worker', T0, async (ctx) => {
      const got = await ctx.block(op, null);
      say(ctx, `popped ${String(got)}`);
    });
    s.spawn('dispatcher', T0 + 1000, async () => op.serve('job-9'));
    expect(await runSteps(s)).toEqual([
      [0, 'worker', null],
      [1000, 'dispatcher', null],
      [1000, 'worker', 'popped job-9'],
    ]);
    expect(op.cancels).toBe(0);
  });

  it('wakes actors served in the same step in the order they blocked', async () => {
    const s = scheduler();
    const ops = { w1: new FakeBlpop(), w2: new FakeBlpop() };
    for (const name of ['w2', 'w1'] as const) {
      s.spawn(name, T0, async (ctx) => {
        const got = await ctx.block(ops[name], 30);
        say(ctx, `${name} got ${String(got)}`);
      });
    }
    s.spawn('dispatcher', T0 + 2, async () => {
      ops.w1.serve('a');
      ops.w2.serve('b');
    });
    expect(await runSteps(s)).toEqual([
      [0, 'w2', null],
      [0, 'w1', null],
      [2, 'dispatcher', null],
      [2, 'w2', 'w2 got b'],
      [2, 'w1', 'w1 got a'],
    ]);
  });

  it('cancels ops still blocked when `until` ends the run; the actor never resumes', async () => {
    const s = scheduler({ until: 10 });
    const op = new FakeBlpop();
    let resumed = false;
    s.spawn('worker', T0, async (ctx) => {
      await ctx.block(op, 60);
      resumed = true;
    });
    s.spawn('ticker', T0, async (ctx) => {
      for (;;) await ctx.sleep(4);
    });
    await runSteps(s);
    expect(op.cancels).toBe(1);
    expect(resumed).toBe(false);
  });

  it('cancels ops still blocked when nothing else is left to run', async () => {
    const s = scheduler();
    const op = new FakeBlpop();
    let resumed = false;
    s.spawn('worker', T0, async (ctx) => {
      await ctx.block(op, null);
      resumed = true;
    });
    expect(await runSteps(s)).toEqual([[0, 'worker', null]]);
    expect(op.cancels).toBe(1);
    expect(resumed).toBe(false);
  });

  it('cancels ops still blocked when the run fails', async () => {
    const s = scheduler();
    const op = new FakeBlpop();
    const boom = new Error('boom');
    s.spawn('worker', T0, async (ctx) => {
      await ctx.block(op, null);
    });
    s.spawn('bad', T0 + 1, async () => {
      throw boom;
    });
    await expect(runSteps(s)).rejects.toBe(boom);
    expect(op.cancels).toBe(1);
  });

  it('rejects run() when an actor throws right after its block timed out', async () => {
    const s = scheduler();
    const boom = new Error('after timeout');
    s.spawn('worker', T0, async (ctx) => {
      await ctx.block(new FakeBlpop(), 2);
      throw boom;
    });
    await expect(runSteps(s)).rejects.toBe(boom);
  });
});

describe('Scheduler: a blocked actor the model knows is still blocked (mayHaveEnded)', () => {
  /** A FakeBlpop with a model beside it: served in the model by push(), counting the questions to the server. */
  class ModelledBlpop extends FakeBlpop {
    asked = 0;
    servedInModel = false;
    override async stillBlocked(): Promise<boolean> {
      this.asked++;
      return super.stillBlocked();
    }
    mayHaveEnded(): boolean {
      return this.servedInModel;
    }
  }

  it('is not asked about after the steps that did not serve it, and wakes in the one that did', async () => {
    const s = scheduler();
    const op = new ModelledBlpop();
    const blocked: boolean[] = [];
    s.spawn('worker', T0, async (ctx) => {
      say(ctx, 'BLPOP queues:default 10');
      say(ctx, `popped ${String(await ctx.block(op, 10))} at t+${ctx.instant() - T0}`);
    });
    s.spawn('ticker', T0 + 1, async (ctx) => {
      await ctx.sleep(1);
    });
    s.spawn('dispatcher', T0 + 3, async (ctx) => {
      say(ctx, 'RPUSH queues:default job-1');
      op.servedInModel = true;
      op.serve('job-1');
    });
    await s.run(async () => {
      blocked.push(s.blockedMayHaveEnded());
    });
    // t+0 the worker blocks, t+1 and t+2 the ticker, t+3 the push, t+3 the worker resumes.
    expect(blocked).toEqual([false, false, false, true, false]);
    // Asked once, after the push: the steps before it were the model's to answer.
    expect(op.asked).toBe(1);
  });

  it('is asked about, and its real-time timeout warned of, once its reply has come though the model served nothing', async () => {
    const warnings: string[] = [];
    const s = scheduler({ onWarning: (m) => warnings.push(m) });
    const op = new ModelledBlpop();
    s.spawn('worker', T0, async (ctx) => {
      await ctx.block(op, 5);
    });
    s.spawn('ticker', T0 + 1, async () => {
      op.expireOnServer();
      // The model's BLPOP knows a reply came (check.ts: mayHaveEnded is true once it has).
      op.servedInModel = true;
    });
    await runSteps(s);
    expect(op.asked).toBeGreaterThan(0);
    expect(warnings).toHaveLength(1);
  });
});

describe('Scheduler: abandon (a process killed from outside)', () => {
  it('a sleeping coroutine never resumes; another of the same actor name runs on', async () => {
    const s = scheduler();
    let victim!: ActorContext;
    s.spawn('w', T0, async (ctx) => {
      victim = ctx;
      say(ctx, 'w starts');
      await ctx.sleep(10);
      say(ctx, 'w wakes (must not happen)');
    });
    s.spawn('w', T0 + 5, async (ctx) => {
      await victim.abandon();
      say(ctx, 'w killed');
      await ctx.sleep(1);
      say(ctx, 'w restarted');
    });
    expect(await runSteps(s)).toEqual([
      [0, 'w', 'w starts'],
      [5, 'w', 'w killed'],
      [6, 'w', 'w restarted'],
    ]);
  });

  it('a blocked coroutine: its operation is cancelled, its deadline too, and it never resumes', async () => {
    const s = scheduler();
    const op = new FakeBlpop();
    let victim!: ActorContext;
    s.spawn('w', T0, async (ctx) => {
      victim = ctx;
      say(ctx, 'w blocks');
      await ctx.block(op, 30);
      say(ctx, 'w unblocked (must not happen)');
    });
    s.spawn('k', T0 + 5, async (ctx) => {
      await victim.abandon();
      say(ctx, 'k kills w');
    });
    expect(await runSteps(s)).toEqual([
      [0, 'w', 'w blocks'],
      [5, 'k', 'k kills w'],
    ]);
    expect(op.cancels).toBe(1);
  });
});

describe('next.isLast(): whether the run ends after this step', () => {
  it('is true only on the last step: nothing left, until reached, or isDone', async () => {
    const lastOf = async (s: Scheduler): Promise<boolean[]> => {
      const out: boolean[] = [];
      await s.run(async (_step, next) => {
        out.push(await next.isLast());
      });
      return out;
    };
    const three = (s: Scheduler): Scheduler => {
      s.spawn('a', T0, async (ctx) => {
        say(ctx, 'one');
        await ctx.sleep(5);
        say(ctx, 'two');
        await ctx.sleep(5);
        say(ctx, 'three');
      });
      return s;
    };
    expect(await lastOf(three(scheduler()))).toEqual([false, false, true]);
    // until 7: the event at t+10 is past the end, so t+5 is the last step.
    expect(await lastOf(three(scheduler({ until: 7 })))).toEqual([false, true]);
    // isDone after the first step: that step is the last.
    let steps = 0;
    const done = scheduler({ isDone: () => steps >= 1 });
    three(done);
    const got: boolean[] = [];
    await done.run(async (_step, next) => {
      steps++;
      got.push(await next.isLast());
    });
    expect(got).toEqual([true]);
  });
});

describe('afterActivation: what an activation leaves is waited for before its step goes on', () => {
  it("is called after each activation yields and awaited before run's onStep", async () => {
    const order: string[] = [];
    const s = scheduler({
      afterActivation: () => {
        order.push('after');
        return new Promise<void>((resolve) =>
          setImmediate(() => {
            order.push('waited');
            resolve();
          }),
        );
      },
    });
    s.spawn('A', T0, async (ctx) => {
      order.push('A 0');
      await ctx.sleep(3);
      order.push('A 1');
    });
    await s.run(async (step) => {
      order.push(`step at ${step.t - T0}`);
    });
    expect(order).toEqual(['A 0', 'after', 'waited', 'step at 0', 'A 1', 'after', 'waited', 'step at 3']);
  });

  it('an undefined from it goes on at once', async () => {
    const s = scheduler({ afterActivation: () => undefined });
    s.spawn('A', T0, async (ctx) => {
      say(ctx, 'A 0');
    });
    expect(await runSteps(s)).toEqual([[0, 'A', 'A 0']]);
  });
});
