// What a live view hands whatever plays steps to it (a scenario run, `lqsim explain --tui`'s
// replay of a capture): called after each step and awaited, so the view holds the player between
// steps. Here, below both, so the players need not import the TUI that holds them.
import type { Step, Timeline } from './timeline.ts';

export type OnStep = (
  step: Step,
  timeline: Timeline,
  info?: {
    /** False while a worker waits in a BLPOP that the server would time out in real time. */
    mayHold: boolean;
    isLast?: () => Promise<boolean>;
    nextAt?: () => Promise<number | null>;
    settled?: () => boolean;
  },
) => Promise<void>;
