// What the lab's tests share: an action that must succeed, and a step as the lab and a replay of
// its saved file must agree on it.
import { expect } from 'vitest';
import type { Step } from '../../src/scenarios/timeline.ts';
import type { LabSession } from '../../src/tui/lab-session.ts';

/** Runs `line` at `cursor` (default: where the lab's view stands), expects it to succeed, and returns its message. */
export async function act(lab: LabSession, line: string, cursor = lab.getStatus().focus?.step ?? 0): Promise<string> {
  await lab.execute(line, cursor);
  const m = lab.getStatus().message;
  expect(m?.error, `${line}: ${m?.text}`).not.toBe(true);
  return m?.text ?? '';
}

/** What a step is, without wall-clock times: who, when, what it said, what Redis got, the state. */
export function essence(s: Step) {
  return {
    t: s.t,
    actor: s.actor,
    kind: s.kind,
    title: s.title,
    commands: s.commands.map((c) => [c.actor, c.process, c.source, ...c.args]),
    state: s.state,
  };
}
