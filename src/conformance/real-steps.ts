// Conformance's collector (step-collector.ts' StepCollector, as the model's run has): after each
// step of real Laravel, the same barrier and attribution as the model's run (attributedAtBarrier),
// then what only this run records: a connection no actor owns (it would be a command silently left
// out of the comparison), and whether the queues are empty (run-end.ts, so both runs end at the
// same step).
import type { VirtualExpiry } from '../redis/virtual-expiry.ts';
import type { Client } from '../redis/connections.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import type { MonitorCapture } from '../redis/monitor.ts';
import type { QueueKeys } from '../sim/keys.ts';
import type { CompletedStep } from '../sim/scheduler.ts';
import type { ActorDirectory } from '../scenarios/attribute.ts';
import type { StepCollector } from '../scenarios/step-collector.ts';
import { attributedAtBarrier } from '../scenarios/step-collector.ts';
import type { RealStep } from './real-laravel.ts';

export class RealSteps implements StepCollector {
  private empty = false;

  constructor(
    private readonly o: {
      capture: MonitorCapture;
      observer: Client;
      observerAddr: string;
      book: ActorDirectory & { readonly unknown: Set<string> };
      queues: readonly QueueKeys[];
      steps: RealStep[];
      /** The TTLs real Laravel sets, kept in virtual time as the model's run keeps them (a cache on Redis). */
      expiry?: VirtualExpiry | null;
    },
  ) {}

  throwIfFaulted(): void {}

  async collect(done: CompletedStep, _next: unknown, index: number): Promise<void> {
    const { o } = this;
    await o.expiry?.afterStep(done.t);
    const { lines, commands } = await attributedAtBarrier(
      o.capture,
      o.observer,
      o.book,
      { index, t: done.t },
      new Map(),
    );
    for (const raw of lines) {
      if (isMonitorOk(raw)) continue;
      const line = parseMonitorLine(raw);
      o.expiry?.see(line);
      const client = line.client;
      if (client !== 'lua' && client !== o.observerAddr && o.book.ownerOf(client) === undefined)
        o.book.unknown.add(client);
    }
    o.steps.push({
      index,
      t: done.t,
      actor: done.actor,
      title: done.description?.title ?? `${done.actor} continues`,
      commands,
    });
    this.empty = await areEmpty(o.observer, o.queues);
  }

  async drain(): Promise<void> {}

  queuesEmpty(): boolean {
    return this.empty;
  }
}

async function areEmpty(observer: Client, queues: readonly QueueKeys[]): Promise<boolean> {
  for (const q of queues) {
    const [ready, delayed, reserved] = await Promise.all([
      observer.sendCommand(['LLEN', q.ready]),
      observer.sendCommand(['ZCARD', q.delayed]),
      observer.sendCommand(['ZCARD', q.reserved]),
    ]);
    if (Number(ready) + Number(delayed) + Number(reserved) > 0) return false;
  }
  return true;
}
