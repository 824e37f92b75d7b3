// The progress bar of `lqsim explain` on a long capture: on stderr, only on a terminal, and only
// once reading has taken long enough to be worth one (a small capture never flashes a bar).
// cli-progress draws it; this decides when, and maps the two passes onto one bar.
import cliProgress from 'cli-progress';

/** A bar appears only after this long, so a capture read in a blink shows none. */
const SHOW_AFTER_MS = 400;

export interface Progress {
  /** How many passes the bar spans (1: only the first, while nothing else is printed). */
  readonly passes: number;
  /** Bytes of the capture read so far in this pass (1 or 2). */
  update(pass: number, bytes: number): void;
  /** Clears the bar (idempotent). */
  stop(): void;
}

export function startProgress(
  name: string,
  size: number,
  o: { enabled: boolean; passes: number; stream?: NodeJS.WritableStream; showAfterMs?: number },
): Progress {
  const started = Date.now();
  let bar: cliProgress.SingleBar | undefined;
  let stopped = !o.enabled || size === 0;
  const mb = (bytes: number): string => (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0);
  return {
    passes: o.passes,
    update(pass, bytes) {
      if (stopped || pass > o.passes) return;
      const value = (pass - 1) * size + Math.min(bytes, size);
      const payload = { name, pass, passes: o.passes, read: mb(Math.min(bytes, size)), size: mb(size) };
      if (bar === undefined) {
        if (Date.now() - started < (o.showAfterMs ?? SHOW_AFTER_MS)) return;
        bar = new cliProgress.SingleBar(
          {
            stream: o.stream ?? process.stderr,
            format: 'lqsim explain {name} [{bar}] {percentage}% | {read}/{size} MB, pass {pass} of {passes}',
            barsize: 24,
            hideCursor: true,
            clearOnComplete: true,
            noTTYOutput: o.stream !== undefined,
            fps: 10,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(o.passes * size, value, payload);
        return;
      }
      bar.update(value, payload);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
