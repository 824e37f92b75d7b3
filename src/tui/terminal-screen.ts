// The full-screen terminal: the alternate screen while the TUI runs, and the shell's screen, with
// its cursor shown, restored on every way out: quitting, an error, a signal (cleanup.ts runs the
// async part), and process exit (the sync part; a TTY write is synchronous).
import { registerCleanup } from '../cleanup.ts';

const ENTER = '\x1b[?1049h\x1b[H\x1b[2J';
// The alternate screen is cleared before it is left: a terminal resized while it was shown may
// carry its lines over to the shell's screen (tmux fills the rows the shell's screen gained from
// it), which would leave box-drawing fragments above the prompt.
const LEAVE = '\x1b[H\x1b[2J\x1b[?25h\x1b[?1049l';

export interface FullScreen {
  /** Leaves the alternate screen (once; later calls do nothing). */
  leave(): void;
}

/** Enters the alternate screen; `beforeLeave` runs first on a signal (e.g. unmount Ink). */
export function enterFullScreen(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  beforeLeave: () => void = () => {},
): FullScreen {
  let active = true;
  const leave = (): void => {
    if (!active) return;
    active = false;
    unregister();
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
    } catch {
      // stdin already closed: nothing to restore
    }
    stdout.write(LEAVE);
  };
  const onSignal = (): void => {
    try {
      beforeLeave();
    } finally {
      leave();
    }
  };
  const unregister = registerCleanup(onSignal, onSignal);
  stdout.write(ENTER);
  return { leave };
}
