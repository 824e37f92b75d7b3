// Conformance's collector (step-collector.ts' StepCollector, as the model's run has): after each
// step of real Laravel, the same barrier and attribution as the model's run (attributeLines), the
// seed connections of a cluster's processes given to them first (address-book.ts), then what only
// this run records: a connection no actor owns (it would be a command silently left out of the
// comparison), and whether the queues are empty (run-end.ts, so both runs end at the same step).
import type { VirtualExpiry } from '../redis/virtual-expiry.ts';
import type { Client } from '../redis/connections.ts';
import { connectionKey } from '../redis/connections.ts';
import { isMonitorOk, parseMonitorLine } from '../redis/monitor-line.ts';
import type { TraceCapture } from '../redis/monitor.ts';
import type { QueueKeys } from '../sim/keys.ts';
import type { CompletedStep } from '../sim/scheduler.ts';
import { attributeLines } from '../scenarios/attribute.ts';
import type { StepCollector } from '../scenarios/step-collector.ts';
import type { AddressBook } from './address-book.ts';
import type { RealStep } from './real-laravel.ts';

export class RealSteps implements StepCollector {
  private empty = false;

  constructor(
    private readonly o: {
      capture: TraceCapture;
      observer: Client;
      /** The tool's own connections (connectionKey): their lines are not the run's. */
      ownKeys: ReadonlySet<string>;
      /** The server that holds a key: the one, or its slot's node on a cluster. */
      serverOf: (key: string) => Client;
      book: Pick<AddressBook, 'ownerOf' | 'isHandshake' | 'learnSeedConnections' | 'unknown'>;
      queues: readonly QueueKeys[];
      steps: RealStep[];
      /** The TTLs real Laravel sets, kept in virtual time as the model's run keeps them (a cache on Redis). */
      expiry?: VirtualExpiry | null;
    },
  ) {}

  throwIfFaulted(): void {}

  /** Every step's lines are read at its barrier. */
  async catchUp(): Promise<void> {}

  async collect(done: CompletedStep, _next: unknown, index: number): Promise<void> {
    const { o } = this;
    await o.expiry?.afterStep(done.t);
    const lines = await o.capture.barrier(o.observer);
    o.book.learnSeedConnections(lines);
    const { commands } = attributeLines(lines, o.book, { index, t: done.t }, new Map());
    for (const raw of lines) {
      if (isMonitorOk(raw)) continue;
      const line = parseMonitorLine(raw);
      o.expiry?.see(line);
      if (line.client === 'lua') continue;
      const key = connectionKey(line.client, line.node);
      if (!o.ownKeys.has(key) && o.book.ownerOf(key) === undefined) o.book.unknown.add(key);
    }
    o.steps.push({
      index,
      t: done.t,
      actor: done.actor,
      title: done.description?.title ?? `${done.actor} continues`,
      commands,
    });
    this.empty = await areEmpty(o.serverOf, o.queues);
  }

  async drain(): Promise<void> {}

  queuesEmpty(): boolean {
    return this.empty;
  }
}

async function areEmpty(serverOf: (key: string) => Client, queues: readonly QueueKeys[]): Promise<boolean> {
  for (const q of queues) {
    const [ready, delayed, reserved] = await Promise.all([
      serverOf(q.ready).sendCommand(['LLEN', q.ready]),
      serverOf(q.delayed).sendCommand(['ZCARD', q.delayed]),
      serverOf(q.reserved).sendCommand(['ZCARD', q.reserved]),
    ]);
    if (Number(ready) + Number(delayed) + Number(reserved) > 0) return false;
  }
  return true;
}
