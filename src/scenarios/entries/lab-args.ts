// The words of a lab command (`dispatch SendEmail delay=10`), as the lab and an entry kind's module
// read them. Here, beside the kinds, because each kind parses its own lab command next to its
// schema, and the scenarios layer never imports from src/lab (the lab imports from it).
import { joinNames } from '../../sim/profiles/index.ts';
import { didYouMean } from '../errors.ts';

/** What completion and checks may name: the session's jobs, workers, connections. */
export interface LabVocabulary {
  jobs: readonly string[];
  /** Every worker of the session. */
  workers: readonly string[];
  /** Workers whose process runs at the lab's clock (stop and kill complete these first). */
  running: readonly string[];
  connections: readonly string[];
  /**
   * The session's Laravel profile: which retry delay its queue:work has (`delay=` or `backoff=`).
   * Absent, completion offers both and the action judges by the session's scenario.
   */
  laravel?: string;
}

/**
 * Where the help lists a command: with the commands about jobs, about workers, about config, or
 * with those that move the session itself (the clock, undo, files).
 */
export type LabGroup = 'jobs' | 'workers' | 'config' | 'session';

/** One command of the lab's command line, as its help and completion show it. */
export interface LabCommandSpec {
  name: string;
  usage: string;
  help: string;
  group: LabGroup;
  /** key=value keys (and bare flags) it takes, for completion; `restart=yes` also completes the value. */
  keys: readonly string[];
  /** What its first argument completes to. */
  first?: (v: LabVocabulary) => readonly string[];
}

/** A command that cannot be done as typed: its message is one line naming the field. */
/** A command the lab cannot run as given: one line, and (`more`) the lines that explain it, shown under it. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly more?: string[],
  ) {
    super(message);
  }
}

/** The words after the command: positionals first, then key=value pairs and bare flags. */
export class Args {
  private readonly pairs = new Map<string, string>();
  private readonly positionals: string[] = [];
  readonly command: string;
  /** `spec`: the command as the session's version shows it (its keys, its usage for errors). */
  constructor(
    private readonly spec: LabCommandSpec,
    words: string[],
  ) {
    this.command = spec.name;
    for (const w of words) {
      const eq = w.indexOf('=');
      if (eq > 0) {
        const key = w.slice(0, eq);
        if (this.pairs.has(key)) throw new CommandError(`${this.command}: ${key} given twice`);
        this.pairs.set(key, w.slice(eq + 1));
      } else if (this.positionals.length === 0 && this.pairs.size === 0 && !spec.keys.includes(w)) {
        // A bare word that is one of the command's flags is the flag, not its positional argument.
        this.positionals.push(w);
      } else this.pairs.set(w, '');
    }
  }
  positional(what: string): string {
    const p = this.positionals.shift();
    if (p === undefined) throw new CommandError(`${this.command}: give ${what}`);
    return p;
  }
  optionalPositional(): string | undefined {
    return this.positionals.shift();
  }
  text(key: string): string | undefined {
    const v = this.pairs.get(key);
    this.pairs.delete(key);
    return v;
  }
  flag(key: string): boolean {
    const v = this.text(key);
    if (v !== undefined && v !== '') throw new CommandError(`${this.command}: ${key} takes no value`);
    return v !== undefined;
  }
  int(key: string, min = 0, max = 86400): number | undefined {
    const v = this.text(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max)
      throw new CommandError(`${this.command}: ${key}=${v}: a whole number from ${min} to ${max}`);
    return n;
  }
  intOrNull(key: string): number | null | undefined {
    if (this.pairs.get(key) === 'null') {
      this.pairs.delete(key);
      return null;
    }
    return this.int(key);
  }
  queue(key: string): string | undefined {
    const v = this.text(key);
    if (v !== undefined && !/^[^,\s]+$/.test(v))
      throw new CommandError(`${this.command}: ${key}=${v}: one queue name, without commas`);
    return v;
  }
  name(key: string, known: readonly string[], what: string): string | undefined {
    const v = this.text(key);
    if (v !== undefined && !known.includes(v))
      throw new CommandError(
        `${this.command}: ${key}=${v}: no ${what} "${v}"${didYouMean(v, [...known])} (${known.join(', ')})`,
      );
    return v;
  }
  worker(v: LabVocabulary): string {
    const w = this.positional(`a worker (${v.running.join(', ') || 'none runs now'})`);
    if (!v.workers.includes(w)) throw new CommandError(`${this.command}: ${noWorker(w, v.workers)}`);
    return w;
  }
  /** Refuses what is left over: a word the command does not take, with its usage. */
  done(): void {
    const extra = [...this.positionals, ...this.pairs.keys()];
    if (extra.length === 0) return;
    const first = extra[0]!;
    const keys = this.spec.keys.map((k) => k.replace(/=.*$/, ''));
    throw new CommandError(
      `${this.command}: "${first}" is not one of its arguments${didYouMean(first, keys)}; usage: ${this.spec.usage}`,
    );
  }
}

/** "no worker named worker-7; the workers are worker-1 and worker-2" (and a likely typo's fix). */
export function noWorker(word: string, workers: readonly string[]): string {
  return `no worker named ${word}${typoOf(word, workers)}; ${theNames('worker', workers)}`;
}

/** "the workers are worker-1 and worker-2", "the worker is worker-1", "there are no workers". */
export function theNames(noun: string, names: readonly string[]): string {
  if (names.length === 0) return `there are no ${noun}s`;
  return names.length === 1 ? `the ${noun} is ${names[0]}` : `the ${noun}s are ${joinNames(names)}`;
}

/**
 * ` (did you mean "worker-1"?)` for a misspelt name, but not for another number of the same name:
 * worker-7 is not a typo of worker-1, and the list that follows names them all anyway. A misspelt
 * name with a number points at that number's (wroker-1 → worker-1, not worker-2 too).
 */
export function typoOf(word: string, names: readonly string[]): string {
  const shape = (n: string) => n.replace(/\d+/g, '#');
  const digits = (n: string) => n.replace(/\D+/g, ' ').trim();
  const others = names.filter((n) => shape(n) !== shape(word));
  const sameNumber = others.filter((n) => digits(n) !== '' && digits(n) === digits(word));
  return didYouMean(word, sameNumber.length > 0 ? sameNumber : others);
}

/** The words of a line; a quoted part keeps its spaces: throw="Mail server down". */
export function tokens(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/(?:[^\s"']+|"[^"]*"?|'[^']*'?)+/g))
    out.push(m[0].replace(/"([^"]*)"?|'([^']*)'?/g, (_q, d?: string, s?: string) => d ?? s ?? ''));
  return out;
}
