// The TUI's keys, routed: the lab's first (its command line, its questions, its bindings), then
// the screen's own (keymap.ts), each press of a burst in turn. Read at key time from refs: keys
// typed before the next frame (":" then "dispatch" in one burst) must reach the command line the
// first of them opened, not the handler of the frame before it.
import { useRef, useState } from 'react';
import type { Key } from 'ink';
import { useInput } from 'ink';
import type { CommandLine } from './command-line.ts';
import { commandKey, CTRL_C_CLOSED, openCommandLine } from './command-line.ts';
import { keyPresses } from './input-keys.ts';
import { labBindingFor } from './lab-keys.ts';
import type { LabSession, LabStatus } from './lab-session.ts';
import type { Mode } from './keymap.ts';
import { actionFor } from './keymap.ts';
import type { Action } from './ui-state.ts';

export interface KeyRouting {
  lab: LabSession | undefined;
  labStatus: LabStatus | null;
  /** The screen showing (main, or an overlay). */
  mode: Mode;
  /** The step in view: where a lab command acts. */
  cursor: number;
  dispatch: (action: Action) => void;
  /** Whether the screen offers an action (b and L only where they lead somewhere). */
  offered: (action: Action | null) => boolean;
  onBranch: ((step: number) => void) | undefined;
  /** Keys are read (a terminal in raw mode). */
  active: boolean;
}

/** Routes the keys; returns what the lab's line shows of them (the command being typed, the message seen, a notice). */
export function useKeys(o: KeyRouting): {
  command: CommandLine | null;
  messageSeen: LabStatus['message'];
  notice: string | null;
} {
  const { lab, labStatus, mode, cursor, dispatch, offered, onBranch } = o;
  const [command, setCommand] = useState<CommandLine | null>(null);
  // A message stays until the next key.
  const [messageSeen, setMessageSeen] = useState<LabStatus['message']>(null);
  // Said until the next key: Ctrl-C closed the command line, and the next one quits.
  const [notice, setNotice] = useState<string | null>(null);
  const commandRef = useRef<CommandLine | null>(null);
  const setCommandLine = (line: CommandLine | null): void => {
    commandRef.current = line;
    setCommand(line);
  };
  const commandInput = (input: string, key: Key): void => {
    // A burst may hold the text and its Enter ("SendEmail\r"): type the text, then run it.
    const parts = !key.return && input.length > 1 && /[\r\n]/.test(input) ? input.split(/([\r\n])/) : [input];
    for (const part of parts) {
      const line = commandRef.current;
      if (line === null || labStatus === null || lab === undefined) return;
      if (part === '' && parts.length > 1) continue; // a key like Tab or Esc comes with no text
      const enter = part === '\r' || part === '\n';
      const r = commandKey(line, enter ? '' : part, enter ? { ...key, return: true } : key, {
        history: labStatus.history,
        complete: (text) => lab.complete(text, cursor),
      });
      setCommandLine(r.kind === 'edit' ? r.line : null);
      if (r.kind === 'close' && r.interrupted === true) setNotice(CTRL_C_CLOSED);
      if (r.kind === 'submit' && r.text.trim() !== '') void lab.execute(r.text, cursor);
    }
  };
  const labKey = (input: string, key: Key): boolean => {
    if (lab === undefined || labStatus === null) return false;
    setMessageSeen(labStatus.message);
    setNotice(null);
    const ctrlC = key.ctrl && input === 'c';
    if (commandRef.current !== null) {
      commandInput(input, key);
      return true;
    }
    if (labStatus.question === 'quit') {
      // s saves and quits once saved; d (or Ctrl-C again) discards and quits; Esc stays.
      const k = input.toLowerCase();
      if (k === 's') void lab.answerQuit('save').then((quit) => quit && dispatch('quit'));
      else if (k === 'd' || ctrlC) void lab.answerQuit('discard').then(() => dispatch('quit'));
      else if (key.escape || k === 'n') void lab.answerQuit('stay');
      return true;
    }
    if (labStatus.confirm !== null) {
      if (input === 'y' || input === 'Y' || input === 'n' || input === 'N' || key.escape)
        void lab.answer(input === 'y' || input === 'Y');
      return true;
    }
    // Ctrl-C while a wait or a play runs stops it there; the lab stays.
    if (ctrlC && lab.cancel()) return true;
    // Quitting with actions not saved asks first (q on the main screen, Ctrl-C anywhere).
    if (((mode === 'main' && input === 'q') || ctrlC) && !lab.askToQuit()) return true;
    // While a replay runs, the lab's commands are read (the session runs them after it, in order);
    // other keys, which act on a view about to be replaced, are held back; quitting is read.
    const busy = labStatus.busy !== null && !(input === 'q' || ctrlC);
    if (mode !== 'main') return busy;
    const b = labBindingFor(input[0] ?? '', key);
    if (b === null) return busy;
    if (b.run !== undefined) void lab.execute(b.run, cursor);
    else {
      setCommandLine(openCommandLine(b.prefill === 'save ' ? `save ${lab.defaultFile()}` : (b.prefill ?? '')));
      // The rest of a burst ("Dsend") goes to the line just opened.
      if (input.length > 1) commandInput(input.slice(1), key);
    }
    return true;
  };
  /** Handles one key press on the screen `on`; returns the screen it leaves showing. */
  const handleKey = (input: string, key: Key, on: Mode): Mode => {
    if (labKey(input, key)) return on;
    // Keys typed faster than they are read arrive together ("nnn"): each one counts.
    const keys = input.length > 1 && !key.ctrl && !key.meta && /^[\x20-\x7e]+$/.test(input) ? [...input] : [input];
    let now = on;
    for (const k of keys) {
      const action = actionFor(now, k, key);
      if (action === 'lab') onBranch?.(cursor);
      else if (action !== null && offered(action)) {
        dispatch(action);
        now = modeAfter(now, action);
      }
    }
    return now;
  };
  useInput(
    (raw, rawKey) => {
      // Esc then a key in one read reaches here as Alt+key: handle both (input-keys.ts), the
      // second on the screen the first leaves (Esc closes the details, then q quits).
      let on = mode;
      for (const [input, key] of keyPresses(raw, rawKey)) on = handleKey(input, key, on);
    },
    { isActive: o.active },
  );
  return { command, messageSeen, notice };
}

function modeAfter(mode: Mode, action: Action): Mode {
  if (action === 'close' || (mode === 'premise' && action === 'next')) return 'main';
  if (action === 'detail' || action === 'info') return 'detail';
  if (action === 'help') return mode === 'help' ? 'main' : 'help';
  if (action === 'premise') return mode === 'premise' ? 'main' : 'premise';
  return mode;
}
