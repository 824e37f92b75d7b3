// MONITOR capture on a dedicated connection (a monitoring connection can run nothing else), and
// the barrier that makes step attribution exact: the observer sends ECHO <token>; once that line
// comes through MONITOR, every command issued before it has been seen, because one server thread
// feeds monitors in execution order.
import type { Client } from './connections.ts';
import { newClient } from './connections.ts';

export class MonitorError extends Error {}

export class MonitorCapture {
  private buffer: string[] = [];
  private waiting: { token: string; resolve: (lines: string[]) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;
  private barriers = 0;

  private constructor(private readonly client: Client) {}

  static async start(url: string): Promise<MonitorCapture> {
    const client = newClient(url);
    const capture = new MonitorCapture(client);
    client.on('error', (e: Error) => capture.fail(new MonitorError(`MONITOR connection failed: ${e.message}`)));
    client.on('end', () => capture.fail(new MonitorError('MONITOR connection closed')));
    await client.connect();
    await client.monitor((line) => capture.onLine(String(line)));
    return capture;
  }

  private onLine(line: string): void {
    const w = this.waiting;
    if (w && line.endsWith(`"ECHO" "${w.token}"`)) {
      this.waiting = null;
      const lines = this.buffer;
      this.buffer = [];
      w.resolve(lines);
      return;
    }
    this.buffer.push(line);
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    // A barrier waiting for a line that can no longer arrive fails now, not at its timeout.
    const w = this.waiting;
    this.waiting = null;
    w?.reject(e);
  }

  /** Every raw MONITOR line since the previous barrier (the barrier's own ECHO excluded). */
  async barrier(observer: Client, timeoutMs = 5000): Promise<string[]> {
    if (this.failure) throw this.failure;
    const token = `lqsim-barrier-${process.pid}-${++this.barriers}`;
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<string[]>((resolve, reject) => {
      this.waiting = { token, resolve, reject };
      timer = setTimeout(() => {
        this.waiting = null;
        reject(this.failure ?? new MonitorError(`MONITOR did not deliver the barrier within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      await observer.sendCommand(['ECHO', token]);
      return await seen;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.client.removeAllListeners('end');
    this.client.destroy();
  }
}
