// A run that keeps its steps keeps their commands' strings as copies of their own, not as slices
// of the MONITOR lines they were cut from (kept-strings.ts): the lab's day-long wait keeps 28,800
// steps, and each 5.7 idle poll's lines carry the pop and migrate scripts' text.
import { describe, expect, it } from 'vitest';
import { heapMb } from '../helpers/heap.ts';
import { parseMonitorLine } from '../../src/redis/monitor-line.ts';
import { KeptStrings } from '../../src/scenarios/kept-strings.ts';
import type { TraceCommand } from '../../src/scenarios/timeline.ts';

/** A client line with a long last argument (a script's text, say) and short ones before it, all its own. */
function line(n: number): string {
  const big = `-- a script ${n} ${'x'.repeat(20_000)}`;
  return `${1700000000 + n}.000001 [0 127.0.0.1:5${String(n % 1000).padStart(4, '0')}] "ZRANGEBYSCORE" "queues:invoices-and-reminders:reserved" "-inf" "${1700000000 + n}" "${big}"`;
}

function command(raw: string): TraceCommand {
  const parsed = parseMonitorLine(raw);
  return {
    step: 0,
    t: 0,
    actor: 'worker-1',
    process: 1,
    source: 'client',
    db: 0,
    args: parsed.args,
    time: parsed.time,
  };
}

describe('KeptStrings', () => {
  it('keeps the arguments and time but none of the line they were cut from; a slice would keep it all', () => {
    const base = heapMb();
    const sliced = Array.from({ length: 500 }, (_, n) => {
      const c = command(line(n));
      c.args.pop(); // the long argument dropped: what stays is cut from the line
      return c;
    });
    const slicedMb = heapMb() - base;
    sliced.length = 0;
    const kept = new KeptStrings();
    const base2 = heapMb();
    const own = Array.from({ length: 500 }, (_, n) => {
      const c = command(line(n));
      c.args.pop();
      kept.keep(c);
      return c;
    });
    const ownMb = heapMb() - base2;
    expect(own[7]!.args).toEqual(['ZRANGEBYSCORE', 'queues:invoices-and-reminders:reserved', '-inf', '1700000007']);
    expect(own[7]!.time).toBe('1700000007.000001');
    expect(slicedMb).toBeGreaterThan(8); // the setup does make slices that hold their line (500 × 20 KB)
    expect(ownMb).toBeLessThan(1);
  });

  it('leaves every argument as it was, and an EVAL its one copy of the script', () => {
    const kept = new KeptStrings();
    const a = command(line(1));
    const b = command(line(2));
    kept.keep(a);
    kept.keep(b);
    expect(a.args.slice(0, 4)).toEqual([
      'ZRANGEBYSCORE',
      'queues:invoices-and-reminders:reserved',
      '-inf',
      '1700000001',
    ]);
    expect(b.args[4]).toBe(`-- a script 2 ${'x'.repeat(20_000)}`);
    const script = 'local job = redis.call("lpop", KEYS[1])';
    const evalCmd: TraceCommand = { ...command(line(3)), args: ['EVAL', script, '1', 'queues:default'], script: 'pop' };
    kept.keep(evalCmd);
    expect(evalCmd.args[1]).toBe(script);
    expect(evalCmd.args).toEqual(['EVAL', script, '1', 'queues:default']);
  });
});
