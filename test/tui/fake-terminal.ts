// A fake terminal for rendering the TUI at a chosen size and resizing it (ink-testing-library's
// stdout is fixed at 100 columns and has no rows). Ink runs in debug mode, so every render writes
// the whole frame and the last write is the screen.
import { EventEmitter } from 'node:events';
import type { ReactElement } from 'react';
import { render } from 'ink';

export class FakeStdout extends EventEmitter {
  readonly frames: string[] = [];
  isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
}

export class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write(data: string): void {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  }
  read = (): string | null => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

export interface Terminal {
  lastFrame(): string;
  /** Writes to stdin and waits for the render that follows. */
  press(...keys: string[]): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  /** True once the app has exited (useApp().exit() or unmount). */
  exited(): boolean;
  unmount(): void;
}

export const KEYS = {
  right: '\u001b[C',
  left: '\u001b[D',
  up: '\u001b[A',
  down: '\u001b[B',
  enter: '\r',
  escape: '\u001b',
  tab: '\t',
};

/** Lets React and Ink flush (frames lag a write by a tick or two). */
export const settle = (ms = 30): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * After a key: waits until the frame has stopped changing (the same for 45 ms, at most 2 s), so a
 * loaded machine that takes longer than a fixed pause to handle the key is still waited for.
 */
export async function settleFrame(frame: () => string): Promise<void> {
  await settle();
  const until = Date.now() + 2000;
  let last = frame();
  let stableSince = Date.now();
  while (Date.now() < until) {
    await settle(15);
    const now = frame();
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= 45) return;
  }
}

export function renderInTerminal(tree: ReactElement, columns: number, rows: number): Terminal {
  const stdout = new FakeStdout(columns, rows);
  const stdin = new FakeStdin();
  const instance = render(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: new FakeStdout(columns, rows) as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let exited = false;
  void instance.waitUntilExit().finally(() => (exited = true));
  return {
    lastFrame: () => stdout.frames[stdout.frames.length - 1] ?? '',
    exited: () => exited,
    press: async (...keys) => {
      for (const k of keys) {
        stdin.write(k);
        await settleFrame(() => stdout.frames[stdout.frames.length - 1] ?? '');
      }
    },
    resize: async (c, r) => {
      stdout.columns = c;
      stdout.rows = r;
      stdout.emit('resize');
      await settle();
    },
    unmount: () => instance.unmount(),
  };
}

/** Polls `frame()` until `test` passes; the last frame is in the error otherwise. */
export async function waitForFrame(
  frame: () => string | undefined,
  test: (f: string) => boolean,
  ms = 5000,
): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const f = frame() ?? '';
    if (test(f)) return f;
    if (Date.now() > until) throw new Error(`the screen never matched; last frame:\n${f}`);
    await settle(20);
  }
}
