// Whether and how much to colour. chalk honours FORCE_COLOR but ignores NO_COLOR, and its own
// detection looks at process.stdout only, so the CLI asks here with the stream it writes to.
import { Chalk, supportsColor, supportsColorStderr, type ChalkInstance } from 'chalk';

export type ColourLevel = 0 | 1 | 2 | 3;

/**
 * The colour level for output written to `stream`, in this order:
 * 1. NO_COLOR set and non-empty → 0. It wins over everything, FORCE_COLOR included (Node gives
 *    FORCE_COLOR precedence; we do not: NO_COLOR is a user's standing choice, while FORCE_COLOR is
 *    often injected by parent tools such as CI runners and task runners). An empty NO_COLOR is
 *    ignored, as https://no-color.org asks.
 * 2. FORCE_COLOR, read the way chalk and Node read it: "0" or "false" → 0; "1"/"2"/"3" → that level
 *    (higher numbers → 3), even without a TTY; "" or "true" → 1. Anything else is ignored.
 * 3. A TTY → chalk's detection (TERM, COLORTERM, CI sniffing; `supportsColorStderr` when the stream
 *    is process.stderr, else `supportsColor`), 0 if it says none. chalk computes these once, at
 *    import, from process.env: on this path `env` has no FORCE_COLOR/NO_COLOR that would matter.
 * 4. Otherwise (a pipe, a file) → 0.
 */
export function colourLevel(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): ColourLevel {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const forced = forceColorLevel(env.FORCE_COLOR);
  if (forced !== undefined) return forced;
  if (stream.isTTY === true) {
    const detected = stream === process.stderr ? supportsColorStderr : supportsColor;
    return detected === false ? 0 : detected.level;
  }
  return 0;
}

/** A chalk instance fixed at `level`; views colour only through the instance they are given. */
export function makeChalk(level: ColourLevel): ChalkInstance {
  return new Chalk({ level });
}

function forceColorLevel(value: string | undefined): ColourLevel | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'true') return 1;
  if (value === 'false') return 0;
  if (!/^\d+$/.test(value)) return undefined;
  return Math.min(Number(value), 3) as ColourLevel;
}
