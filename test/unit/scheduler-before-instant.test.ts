// The scheduler's beforeInstant hook (what runs out in virtual time, src/redis/virtual-expiry.ts):
// called once each time the clock is about to move forward, with the new instant, before the event
// there fires; never for another event at the same instant, nor for one past `until`.
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/sim/scheduler.ts';

const T0 = 1_700_000_000;

describe('Scheduler beforeInstant', () => {
  it('runs before the first event of each later instant, in order with the steps', async () => {
    const log: string[] = [];
    const s = new Scheduler({
      start: T0,
      until: 30,
      maxSteps: 100,
      beforeInstant: async (at) => {
        await new Promise((r) => setTimeout(r, 1)); // the event waits for it
        log.push(`before t+${Math.round((at - T0) * 1000) / 1000}`);
      },
    });
    s.spawn('a', T0, async (ctx) => {
      log.push(`a at t+${ctx.instant() - T0}`);
      await ctx.sleep(0); // same instant: no hook
      log.push('a again');
      await ctx.sleep(29.999);
      log.push(`a at t+${Math.round((ctx.instant() - T0) * 1000) / 1000}`);
      await ctx.sleep(0.002); // t+30.001: past until, never reached
      log.push('a past until');
    });
    s.spawn('b', T0 + 5, async () => {
      log.push('b at t+5');
    });
    await s.run(async () => undefined);
    expect(log).toEqual(['a at t+0', 'a again', 'before t+5', 'b at t+5', 'before t+29.999', 'a at t+29.999']);
  });

  it('a hook that fails ends the run with its error', async () => {
    const s = new Scheduler({
      start: T0,
      until: null,
      maxSteps: 100,
      beforeInstant: async () => {
        throw new Error('the sweep failed');
      },
    });
    let ran = false;
    s.spawn('a', T0 + 1, async () => {
      ran = true;
    });
    await expect(s.run(async () => undefined)).rejects.toThrow('the sweep failed');
    expect(ran).toBe(false);
  });
});
