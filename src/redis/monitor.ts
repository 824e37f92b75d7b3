// MONITOR capture on a dedicated connection (a monitoring connection can run nothing else), and
// the barrier that makes step attribution exact: the observer sends ECHO <token>; once that line
// comes through MONITOR, every command issued before it has been seen, because one server thread
// feeds monitors in execution order.
//
// A monitor that cannot keep up is not slowed down by the server: once its output buffer passes
// client-output-buffer-limit (MONITOR clients count as "normal" clients) the server closes it.
// That ends the run with an error saying so; a trace is never silently cut short.
import { randomBytes } from 'node:crypto';
import type { Client, Sender } from './connections.ts';
import { newClient } from './connections.ts';
import { aclDenial } from './preflight.ts';
import { RedisRefusedError } from './errors.ts';
import { stringArrayReply } from './reply.ts';

export class MonitorError extends Error {}

const NO_MARKS: string[] = [];

/** INFO stats counter (Redis 7.0+) of clients closed for passing client-output-buffer-limit. */
const DROPPED = /^client_output_buffer_limit_disconnections:(\d+)/m;

export async function droppedCount(observer: Client): Promise<number | undefined> {
  const info = String(await observer.sendCommand(['INFO', 'stats']));
  const m = DROPPED.exec(info);
  return m ? Number(m[1]) : undefined;
}

/** The "normal" class of client-output-buffer-limit ("0 0 0" = none); throws if CONFIG is denied. */
async function normalBufferLimit(observer: Client): Promise<string | undefined> {
  const reply = stringArrayReply(
    await observer.sendCommand(['CONFIG', 'GET', 'client-output-buffer-limit']),
    'CONFIG GET client-output-buffer-limit',
  );
  return /(?:^| )normal (\d+ \d+ \d+)/.exec(reply[1] ?? '')?.[1];
}

interface Waiting {
  token: string;
  resolve: (lines: string[]) => void;
  reject: (e: Error) => void;
}

export class MonitorCapture {
  private buffer: string[] = [];
  /** The barrier waiting for its line, if any; always after every mark in `marks`. */
  private waiting: Waiting | null = null;
  /** Marks (see mark()) whose line has not come yet, oldest first. */
  private readonly marks: Waiting[] = [];
  /** Marks made but not sent yet: the next traced command or barrier sends them (takeMarks). */
  private unsent: string[] = [];
  /**
   * Takes each line as it comes instead of keeping it for the next barrier or mark (which then
   * resolve with no lines): a streaming run attributes lines on arrival, so a step of 100,000
   * commands is never held whole. `onBoundary` is told of each barrier or mark line passing, at
   * once, so the lines after it in the same read go to the next step.
   */
  sink: ((line: string) => void) | null = null;
  onBoundary: (() => void) | null = null;
  private failure: Error | null = null;
  private barriers = 0;
  /**
   * Per capture: several runs at once on one server (parallel tests on REDIS_URL) each see every
   * ECHO in MONITOR, so a token must never be another run's (a counter alone repeats across runs
   * of one process, and a barrier passed early would put a step's lines into the next step).
   */
  private readonly id = randomBytes(6).toString('hex');
  private droppedBefore: number | undefined;

  private constructor(private readonly client: Client) {}

  /**
   * `observer` (optional) lets a lost MONITOR connection be told apart from one that fell behind;
   * it may still be connecting (a promise of it): this connection opens meanwhile, and MONITOR is
   * sent once the observer has read the count it is told apart by. `o.dropped`: that count asked
   * for already (droppedCount, sent with the observer's first commands: no round trip of its
   * own), and `o.after`: what MONITOR waits for besides it.
   */
  static async start(
    url: string,
    observer?: Client | Promise<Client>,
    handedOn?: Client,
    o: { dropped?: Promise<number | undefined>; after?: Promise<unknown> } = {},
  ): Promise<MonitorCapture> {
    // A connection an earlier run handed on (connection-pool.ts) is connected already.
    const client = handedOn ?? newClient(url);
    const capture = new MonitorCapture(client);
    client.on('error', capture.onError);
    client.on('end', capture.onEnd);
    const connected = handedOn === undefined ? client.connect() : Promise.resolve();
    connected.catch(() => undefined); // awaited below, after the count
    try {
      const dropped = o.dropped ?? (observer ? Promise.resolve(observer).then(droppedCount) : undefined);
      dropped?.catch(() => undefined);
      await o.after;
      if (dropped) capture.droppedBefore = await dropped.catch(() => undefined);
      await connected;
    } catch (e) {
      client.destroy();
      throw e;
    }
    try {
      await client.monitor((line) => capture.arrived(String(line)));
    } catch (e) {
      client.destroy();
      const denied = aclDenial(e);
      if (denied)
        throw new RedisRefusedError(
          `this server's user may not run MONITOR, which is how lqsim sees the commands (${denied})`,
        );
      throw e;
    }
    return capture;
  }

  /**
   * Lines as node-redis decoded them, not handled yet. A reply and the MONITOR lines of its
   * command come in the same turn of the event loop, and node-redis writes the next command in a
   * setImmediate: lines handled as they arrive held that command back while Redis idled. They are
   * handled two immediates later instead (after that write), in order, while Redis runs it: 10,000
   * jobs took 5.96 s before, 5.42 s after (docs/performance.md).
   */
  private arrivedLines: string[] = [];
  private drainScheduled = false;

  private arrived(line: string): void {
    if (this.stopped) return;
    this.arrivedLines.push(line);
    // A barrier waiting holds the run: nothing is to be written before its line, so at once.
    if (this.waiting !== null) return this.drainArrived();
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => setImmediate(() => this.drainArrived()));
  }

  private drainArrived(): void {
    this.drainScheduled = false;
    const lines = this.arrivedLines;
    this.arrivedLines = [];
    for (const line of lines) this.onLine(line);
  }

  private onLine(line: string): void {
    const m = this.marks[0];
    if (m !== undefined && line.endsWith(`"ECHO" "${m.token}"`)) {
      this.marks.shift();
      this.passed(m);
      return;
    }
    const w = this.waiting;
    if (w && this.marks.length === 0 && line.endsWith(`"ECHO" "${w.token}"`)) {
      this.waiting = null;
      this.passed(w);
      return;
    }
    if (this.sink !== null) this.sink(line);
    else this.buffer.push(line);
  }

  private passed(w: Waiting): void {
    const lines = this.buffer;
    this.buffer = [];
    this.onBoundary?.();
    w.resolve(lines);
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.drainArrived();
    this.failure = e;
    // A barrier waiting for a line that can no longer arrive fails now, not at its timeout.
    const w = this.waiting;
    this.waiting = null;
    w?.reject(e);
    for (const m of this.marks.splice(0)) m.reject(e);
  }

  /**
   * A step boundary that costs no round trip of its own (streaming runs, runner.ts): resolves with
   * every MONITOR line since the previous barrier or mark, once the mark's `ECHO <token>` has come
   * through MONITOR. The ECHO is not sent here: takeMarks() hands it to whichever connection sends
   * the next command (pipelined ahead of that command, on its connection, so it is executed after
   * everything before the mark was answered and before anything after it), or barrier() sends it.
   */
  mark(): Promise<string[]> {
    if (this.failure) return Promise.reject(this.failure);
    const token = this.nextToken();
    this.unsent.push(token);
    return new Promise<string[]>((resolve, reject) => this.marks.push({ token, resolve, reject }));
  }

  /** The marks to send now, in order, ahead of the command about to go out (see mark()). */
  takeMarks(): string[] {
    if (this.unsent.length === 0) return NO_MARKS;
    const marks = this.unsent;
    this.unsent = [];
    return marks;
  }

  private nextToken(): string {
    return `lqsim-barrier-${this.id}-${++this.barriers}`;
  }

  /**
   * Every raw MONITOR line since the previous barrier (the barrier's own ECHO excluded). The ECHOs
   * go on `via` when given (ConnectionHub.barrierConnection), else on the observer.
   */
  async barrier(observer: Client, timeoutMs = 5000, via: Sender = observer): Promise<string[]> {
    if (this.failure) throw await this.explain(observer, this.failure);
    // Marks not sent yet go first, on the same connection, so their lines still come in order.
    for (const mark of this.takeMarks()) void via.sendCommand(['ECHO', mark]).catch(() => undefined);
    const token = this.nextToken();
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<string[]>((resolve, reject) => {
      this.waiting = { token, resolve, reject };
      timer = setTimeout(() => {
        this.waiting = null;
        reject(
          this.failure ??
            new MonitorError(
              `MONITOR did not deliver the barrier within ${timeoutMs} ms (server hung or network down)`,
            ),
        );
      }, timeoutMs);
    });
    // The ECHO can fail (or hang on a dead network) as well as the MONITOR line: whichever first.
    const sent = via.sendCommand(['ECHO', token]).then(() => new Promise<never>(() => {}));
    try {
      return await Promise.race([seen, sent]);
    } catch (e) {
      throw e instanceof MonitorError ? await this.explain(observer, e) : e;
    } finally {
      clearTimeout(timer);
      seen.catch(() => undefined);
    }
  }

  /**
   * Says "fell behind" when the server closed the monitor for its output buffer: certain when the
   * server counts such closings (INFO stats, Redis 7.2+), likely when it is still up and has a
   * limit for normal clients (older servers).
   */
  private async explain(observer: Client, e: Error): Promise<Error> {
    if (!this.failure) return e;
    const now = await droppedCount(observer).catch(() => undefined);
    const advice =
      'the trace would be incomplete, so the run stops; raise that limit ' +
      '(CONFIG SET client-output-buffer-limit "normal 0 0 0") or run fewer jobs per step';
    if (this.droppedBefore !== undefined && now !== undefined) {
      if (now <= this.droppedBefore) return e;
      return new MonitorError(
        `MONITOR fell behind: the server closed the monitoring connection when its output buffer passed client-output-buffer-limit (the "normal" class); ${advice}`,
      );
    }
    const limit = await normalBufferLimit(observer).catch(() => undefined);
    if (limit === undefined || /^0 0 0$/.test(limit)) return e;
    return new MonitorError(
      `MONITOR connection closed by the server, which is still up: MONITOR most likely fell behind and passed client-output-buffer-limit (normal ${limit}); ${advice}`,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.client.removeAllListeners('end');
    this.client.destroy();
  }

  /**
   * Stops capturing and gives the connection back out of MONITOR mode (RESET, Redis 6.2+), for the
   * next run (connection-pool.ts). The RESET is sent, not waited for: what goes next on the
   * connection (handOn's CLIENT INFO and SELECT) goes out in the same write and is answered after
   * it, and handOn keeps the connection only where that CLIENT INFO shows it out of MONITOR mode.
   * A RESET that fails closes the connection.
   */
  handOff(): Client {
    this.stopped = true;
    this.client.off('error', this.onError);
    this.client.off('end', this.onEnd);
    this.client.reset().catch(() => this.client.destroy());
    return this.client;
  }

  /** Set by stop() and handOff(): lines that still come are no run's. */
  private stopped = false;
  private readonly onError = (e: Error): void => this.fail(new MonitorError(`MONITOR connection failed: ${e.message}`));
  private readonly onEnd = (): void => this.fail(new MonitorError('MONITOR connection closed'));
}

/** What a run reads its MONITOR lines from: one server's capture, or a cluster's (cluster-capture.ts). */
export type TraceCapture = Pick<MonitorCapture, 'barrier' | 'mark' | 'takeMarks' | 'stop' | 'sink' | 'onBoundary'>;
