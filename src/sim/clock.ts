// The virtual clock's arithmetic. Scenario times (`at`, a worker's `start`, `until`) may carry
// fractions of a second, to the millisecond: the scheduler keeps its clock in integer
// milliseconds, and every instant handed out is `ms / 1000`, so the same millisecond is always
// the same number (0.1 + 0.2 never becomes 0.30000000000000004, and equal instants compare equal).
// Laravel's own clock is whole seconds (PHP's time(), Carbon::now()->getTimestamp()): what it
// reads from the clock is `phpTime(instant)`. See ActorContext in scheduler.ts for which is which.

/** Milliseconds of `seconds` (an instant or a duration), rounded to the millisecond. */
export function toMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** The canonical instant of `seconds`: the same millisecond always gives the same number. */
export function exactInstant(seconds: number): number {
  return toMs(seconds) / 1000;
}

/** `instant + seconds`, canonical: a deadline (the alarm, a BLPOP's timeout, when handle() returns). */
export function later(instant: number, seconds: number): number {
  return (toMs(instant) + toMs(seconds)) / 1000;
}

/** Seconds from `from` to `to`, to the millisecond (negative when `to` is earlier). */
export function secondsBetween(from: number, to: number): number {
  return (toMs(to) - toMs(from)) / 1000;
}

/** PHP's time() at `instant`: the whole unix second it falls in (what Laravel reads). */
export function phpTime(instant: number): number {
  return Math.floor(toMs(instant) / 1000);
}

const MS_EXACT = 2 ** 42 * 1000;

/** Each count of milliseconds as the fraction String() writes after a whole second: "", ".5", ".25", ".001". */
const FRACTIONS = Array.from({ length: 1000 }, (_, ms) =>
  ms === 0 ? '' : `.${String(ms).padStart(3, '0').replace(/0+$/, '')}`,
);

/**
 * Seconds as scenarios write them: `0`, `0.5`, `2.25`, `61`. What String() writes of the canonical
 * instant (its shortest decimal, which has at most three places), from the whole milliseconds:
 * a trace writes one or more per step, and a double's shortest decimal costs three times as much.
 */
export function formatSeconds(seconds: number): string {
  const ms = toMs(seconds);
  // Below 2^42 s (year 141,000) a double's step is under a millisecond, so `ms / 1000` has one
  // decimal of three places or fewer that reads back as it: this one. Beyond (and not finite), String() itself.
  if (!(Math.abs(ms) < MS_EXACT)) return String(ms / 1000 + 0); // + 0: no "-0"
  const whole = Math.floor(Math.abs(ms) / 1000);
  const text = `${whole}${FRACTIONS[Math.abs(ms) - whole * 1000]!}`;
  return ms < 0 ? `-${text}` : text;
}

/** A virtual time relative to t=0, as every view shows it: `t+0s`, `t+0.5s`, `t-5s`. */
export function relativeTime(t: number, start: number): string {
  const d = secondsBetween(start, t);
  return d < 0 ? `t-${formatSeconds(-d)}s` : `t+${formatSeconds(d)}s`;
}
