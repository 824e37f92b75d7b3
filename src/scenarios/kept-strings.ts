// A step keeps its commands' arguments, which parseMonitorLine cut out of the MONITOR line: in V8
// each is a slice that keeps the whole line alive, and a line with an EVAL carries the script's
// text (a 5.7 idle poll kept 2.7 KB of lines for 60 bytes of arguments). A run that keeps its
// steps (the lab's day-long wait: 28,800 of them) keeps copies of their own instead; the short
// ones (key names, "-inf", a second's timestamp) once each for the run.
import { ownCopy } from '../redis/own-string.ts';
import type { TraceCommand } from './timeline.ts';

/** Arguments at most this long are shared across the run's steps (a payload is not: each is one of its own). */
const SHARED_LENGTH = 64;

export class KeptStrings {
  private readonly shared = new Map<string, string>();

  /** `cmd`'s strings as copies of their own (an EVAL's script text is the run's one copy already: left). */
  keep(cmd: TraceCommand): void {
    const { args } = cmd;
    for (let i = 0; i < args.length; i++) if (i !== 1 || cmd.script === undefined) args[i] = this.own(args[i]!);
    cmd.time = ownCopy(cmd.time);
  }

  private own(s: string): string {
    if (s.length > SHARED_LENGTH) return ownCopy(s);
    let kept = this.shared.get(s);
    if (kept === undefined) {
      kept = ownCopy(s);
      this.shared.set(kept, kept);
    }
    return kept;
  }
}
