// Two normalised traces aligned step by step. Steps are matched by Myers' diff (jsdiff) on their
// whole content (actor and commands); among the steps left over between two matches, those of the
// same actor starting with the same command are paired as "changed" and diffed command by command;
// the rest are only in a or only in b.
import { diffArrays } from 'diff';
import type { NormalisedCommand, NormalisedStep, NormalisedTrace } from './normalise.ts';
import { commandKey } from './normalise.ts';
import { dbRule } from './database.ts';

export type CommandDiff = { kind: 'same' | 'removed' | 'added'; command: NormalisedCommand };

export type StepDiff =
  | { kind: 'same'; a: NormalisedStep; b: NormalisedStep }
  | { kind: 'changed'; a: NormalisedStep; b: NormalisedStep; commands: CommandDiff[] }
  | { kind: 'removed'; a: NormalisedStep }
  | { kind: 'added'; b: NormalisedStep };

export interface TraceDiff {
  steps: StepDiff[];
  /** The key prefixes when they differ (it is stripped from the commands, so it is compared here). */
  prefix?: [string, string];
  /** How a side was read (`b: SELECT 3 compared as the scenario's db 0: ...`): the diff's header says them. */
  notes?: string[];
  same: number;
  changed: number;
  removed: number;
  added: number;
}

function stepKey(s: NormalisedStep): string {
  return `${s.actor}\n${s.commands.map(commandKey).join('\n')}`;
}

/** Same actor, and the first command is the same command (name and source). */
function similar(a: NormalisedStep, b: NormalisedStep): boolean {
  const head = (s: NormalisedStep) =>
    s.commands[0] ? `${s.commands[0].source} ${s.commands[0].args[0]?.toUpperCase()}` : '';
  return a.actor === b.actor && head(a) === head(b);
}

/**
 * Myers over `a` and `b` with `equal`, as a list of aligned pairs: [x, y] matched, [x, undefined]
 * only in a, [undefined, y] only in b, in order.
 */
export function align<T>(
  a: readonly T[],
  b: readonly T[],
  equal: (x: T, y: T) => boolean,
): Array<[T | undefined, T | undefined]> {
  const out: Array<[T | undefined, T | undefined]> = [];
  let i = 0;
  let j = 0;
  for (const change of diffArrays([...a], [...b], { comparator: equal })) {
    for (let k = 0; k < (change.count ?? change.value.length); k++) {
      if (change.removed) out.push([a[i++], undefined]);
      else if (change.added) out.push([undefined, b[j++]]);
      else out.push([a[i++], b[j++]]);
    }
  }
  return out;
}

export function diffCommands(a: readonly NormalisedCommand[], b: readonly NormalisedCommand[]): CommandDiff[] {
  return align(a, b, (x, y) => commandKey(x) === commandKey(y)).map(([x, y]) =>
    x && y ? { kind: 'same', command: y } : x ? { kind: 'removed', command: x } : { kind: 'added', command: y! },
  );
}

export function diffTraces(a: NormalisedTrace, b: NormalisedTrace): TraceDiff {
  const steps: StepDiff[] = [];
  let pendingA: NormalisedStep[] = [];
  let pendingB: NormalisedStep[] = [];
  const flush = () => {
    for (const [x, y] of align(pendingA, pendingB, similar)) {
      if (x && y) steps.push({ kind: 'changed', a: x, b: y, commands: diffCommands(x.commands, y.commands) });
      else if (x) steps.push({ kind: 'removed', a: x });
      else steps.push({ kind: 'added', b: y! });
    }
    pendingA = [];
    pendingB = [];
  };
  for (const [x, y] of align(a.steps, b.steps, (p, q) => stepKey(p) === stepKey(q))) {
    if (x && y) {
      flush();
      steps.push({ kind: 'same', a: x, b: y });
    } else if (x) pendingA.push(x);
    else pendingB.push(y!);
  }
  flush();
  const count = (k: StepDiff['kind']) => steps.filter((s) => s.kind === k).length;
  const d: TraceDiff = {
    steps,
    same: count('same'),
    changed: count('changed'),
    removed: count('removed'),
    added: count('added'),
  };
  const prefixA = a.meta.prefix ?? '';
  const prefixB = b.meta.prefix ?? '';
  if (prefixA !== prefixB) d.prefix = [prefixA, prefixB];
  const notes = [sideNotes('a', a), sideNotes('b', b)].flat();
  if (notes.length > 0) d.notes = notes;
  return d;
}

function sideNotes(side: 'a' | 'b', t: NormalisedTrace): string[] {
  const db = dbRule(t.database)?.note;
  return [...(db === undefined ? [] : [db]), ...(t.notes ?? [])].map((n) => `${side}: ${n}`);
}

/** `3 steps differ, 12 same` (the line `lqsim diff` ends with). */
export function diffSummary(d: TraceDiff): string {
  const differ = d.changed + d.removed + d.added;
  const parts = [`${d.changed} changed`, `${d.removed} only in a`, `${d.added} only in b`];
  const prefix = d.prefix ? '; the key prefix differs' : '';
  return `${differ} step${differ === 1 ? '' : 's'} differ${differ === 1 ? 's' : ''}${differ > 0 ? ` (${parts.join(', ')})` : ''}, ${d.same} same${prefix}`;
}

export function isIdentical(d: TraceDiff): boolean {
  return d.changed + d.removed + d.added === 0 && d.prefix === undefined;
}
