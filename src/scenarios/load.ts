// Reads a scenario file: YAML → zod (schema.ts) → cross-reference checks. Every failure is a
// ScenarioError pointing at the offending text, so an author can jump straight to it.
import { ARTISAN_ACTOR } from '../sim/artisan.ts';
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parse, parseDocument, visit } from 'yaml';
import type { Document, YAMLError } from 'yaml';
import { scenarioSchema, type ScenarioInput, type ScenarioSpec } from './schema.ts';
import { ScenarioError, didYouMean, oneLine } from './errors.ts';
import { schemaProblems, show, type Path, type Problem } from './schema-issues.ts';
import { DISPATCHER, isQueueName, singleQueue } from './fields.ts';
import type { CheckContext } from './entries/index.ts';
import { kindOf } from './entries/index.ts';
import { versionProblems, workerOptionProblems } from './option-checks.ts';
import { jobClassProblems } from './job-checks.ts';
import { getProfile, PROFILE_NAMES } from '../sim/profiles/index.ts';
import {
  MAX_FILE_BYTES,
  MAX_JOBS,
  MAX_NESTING,
  MAX_TIMELINE_ENTRIES,
  MAX_WORKERS,
  nestingTooDeep,
  sizeText,
} from './limits.ts';
import { readScenarioSource } from './read-source.ts';

export interface LoadedScenario {
  spec: ScenarioSpec;
  file: string;
  source: string;
}

/** Aliases may share a block or two; more expansions than this is an alias bomb. */
const MAX_ALIAS_COUNT = 100;
/** Sum of every dispatch entry's count. */
const MAX_TOTAL_DISPATCHES = 100_000;

export async function loadScenarioFile(file: string): Promise<LoadedScenario> {
  return parseScenario(await readScenarioSource(file), file);
}

/** A scenario file as written, not validated (the lab keeps a person's own file's shape). */
export async function readScenarioInput(file: string): Promise<ScenarioInput> {
  const source = await readScenarioSource(file);
  checkNesting(source, file);
  return parse(source) as ScenarioInput;
}

export function parseScenario(source: string, file: string): LoadedScenario {
  const parsed = parseYaml(source, file);
  const schema = scenarioSchema();
  const result = schema.safeParse(parsed.data);
  if (!result.success) {
    throw parsed.locator.error(schemaProblems(result.error.issues, schema, parsed.data));
  }
  const problems = crossReferenceProblems(result.data);
  if (problems.length > 0) throw parsed.locator.error(problems);
  return { spec: result.data, file, source };
}

/**
 * The checks a spec whose schema passed gets, wired once for every caller that holds one (a file
 * loaded, a spec built in code, the lab's session, a run): its first problem, of its own
 * (crossReferenceProblems, its version's options among them) or, run under `laravel` (--laravel),
 * what that version lacks of what it uses.
 */
export function specProblem(spec: ScenarioSpec, laravel?: string): Problem | undefined {
  const own = crossReferenceProblems(spec)[0];
  if (own !== undefined || laravel === undefined || laravel === spec.laravel) return own;
  const profile = getProfile(laravel);
  return (
    versionProblems(spec, profile, `this run is Laravel ${profile.name} (--laravel)`)[0] ??
    crossReferenceProblems({ ...spec, laravel: profile.name })[0]
  );
}

/** A scenario given as data (not a file): its spec, or its first problem, schema's or specProblem's. */
export function checkInput(input: unknown): { spec: ScenarioSpec } | { problem: Problem } {
  const schema = scenarioSchema();
  const result = schema.safeParse(input);
  if (!result.success)
    return {
      problem: schemaProblems(result.error.issues, schema, input)[0] ?? { path: [], detail: 'invalid scenario' },
    };
  const problem = specProblem(result.data);
  return problem === undefined ? { spec: result.data } : { problem };
}

/**
 * What runScenario refuses under `--laravel <version>` (the overriding version lacks an option or
 * an entry the scenario uses), in its words, for the CLI to refuse before it starts a Redis.
 */
export function checkProfileOverride(loaded: LoadedScenario, laravel: string | undefined): void {
  const problem = specProblem(loaded.spec, laravel);
  if (problem) throw scenarioErrorAt(loaded, problem.path, problem.detail);
}

/** A ScenarioError for `path` in an already loaded scenario (for checks made by its callers). */
export function scenarioErrorAt(loaded: LoadedScenario, path: Path, detail: string): ScenarioError {
  const lineCounter = new LineCounter();
  const doc = parseDocument(loaded.source, { lineCounter, prettyErrors: false });
  return new Locator(loaded.file, loaded.source, doc, lineCounter).error([{ path, detail }]);
}

// ---------------------------------------------------------------------------------------------
// YAML

function parseYaml(source: string, file: string): { data: unknown; locator: Locator } {
  // Text given in code (not read from a file) meets the file's limits too.
  if (source.length > MAX_FILE_BYTES && Buffer.byteLength(source) > MAX_FILE_BYTES) {
    throw new ScenarioError(
      file,
      0,
      0,
      '',
      `the scenario is ${sizeText(Buffer.byteLength(source))}; a scenario file may be at most ${sizeText(MAX_FILE_BYTES)}`,
    );
  }
  checkNesting(source, file);
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locator = new Locator(file, source, doc, lineCounter);
  // Warnings (an unresolved !tag, say) change what the file means: treat them as errors too.
  if (doc.errors.length > 0) throw locator.syntaxError(doc.errors);
  if (doc.warnings.length > 0) throw locator.syntaxError(doc.warnings);
  const top = doc.contents;
  if (top === null) {
    throw new ScenarioError(
      file,
      1,
      1,
      '',
      'the file is empty; expected a mapping with name, title, timeline and (usually) jobs',
    );
  }
  if (!isMap(top)) {
    const got = isSeq(top) ? 'a list' : isScalar(top) ? show(top.value) : 'something else';
    const { line, col } = locator.offset(top.range?.[0] ?? 0);
    throw new ScenarioError(
      file,
      line,
      col,
      '',
      `expected a mapping with name, title, timeline and (usually) jobs at the top level, got ${got}`,
    );
  }
  readLaravelNumber(top.get('laravel', true), file, locator);
  // Before the document becomes JS objects and meets zod, which is where a big file's memory goes.
  for (const [key, max, what] of [
    ['timeline', MAX_TIMELINE_ENTRIES, 'entries'],
    ['jobs', MAX_JOBS, 'jobs'],
    ['workers', MAX_WORKERS, 'workers'],
  ] as const) {
    const node: unknown = top.get(key, true);
    if ((isSeq(node) || isMap(node)) && node.items.length > max) {
      const { line, col } = locator.offset(node.range?.[0] ?? 0);
      throw new ScenarioError(file, line, col, key, `${node.items.length} ${what}; a scenario may have at most ${max}`);
    }
  }
  // A list or mapping as a key (`? [a, b]`) has no JS object form (yaml would stringify it).
  let complexKey: number | undefined;
  visit(doc, {
    Pair(_key, pair) {
      if (isScalar(pair.key) || pair.key === null) return undefined;
      complexKey = rangeStart(pair.key) ?? 0;
      return visit.BREAK;
    },
  });
  if (complexKey !== undefined) {
    const { line, col } = locator.offset(complexKey);
    throw new ScenarioError(file, line, col, '', 'a key must be a plain name, not a list, mapping or alias');
  }
  try {
    return { data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), locator };
  } catch (err) {
    // yaml throws a ReferenceError for an unresolved alias or an alias bomb; point at the alias.
    let alias: { range?: [number, number, number] | null } | undefined;
    visit(doc, {
      Alias(_key, node) {
        const unresolved = node.resolve(doc) === undefined;
        if (alias === undefined || unresolved) alias = node;
        return unresolved ? visit.BREAK : undefined;
      },
    });
    const { line, col } = locator.offset(alias?.range?.[0] ?? 0);
    const message = err instanceof Error ? err.message : String(err);
    const detail = /excessive alias count/i.test(message)
      ? `too many alias expansions (more than ${MAX_ALIAS_COUNT}); is this a YAML alias bomb?`
      : message;
    throw new ScenarioError(file, line, col, '', oneLine(detail));
  }
}

/**
 * `laravel: 8` unquoted is a number to YAML, and names a profile as plainly as "8": taken as the
 * profile written (8, 13, 5.7). A number whose text YAML does not keep (5.10 reads as 5.1, 5.70 as
 * 5.7, 8.0 as 8) is refused: which version was meant is not certain.
 */
function readLaravelNumber(node: unknown, file: string, locator: Locator): void {
  if (!isScalar(node) || typeof node.value !== 'number' || node.type !== 'PLAIN') return;
  const written = node.source ?? String(node.value);
  if ((PROFILE_NAMES as readonly string[]).includes(written)) {
    node.value = written;
    return;
  }
  const read = String(node.value);
  if (written === read) return; // 9: a number as written, which zod refuses like any other
  const { line, col } = locator.offset(node.range?.[0] ?? 0);
  const named = (PROFILE_NAMES as readonly string[]).includes(read);
  throw new ScenarioError(
    file,
    line,
    col,
    'laravel',
    named
      ? `YAML reads ${written} as the number ${read}; write "${read}" in quotes if that is the version meant`
      : `YAML reads ${written} as the number ${read}, which names no profile; write the version in quotes: one of ${PROFILE_NAMES.map((n) => `"${n}"`).join(', ')}`,
  );
}

/** Turns paths into positions in the YAML source. */
class Locator {
  constructor(
    private readonly file: string,
    private readonly source: string,
    private readonly doc: Document.Parsed,
    private readonly lineCounter: LineCounter,
  ) {}

  offset(offset: number): { line: number; col: number } {
    return this.lineCounter.linePos(offset);
  }

  /**
   * The error for the earliest problem in the file (ties: the first listed). Problems whose
   * node is missing (a required field) sit at an ancestor's position and come after the rest:
   * an unknown key `jobz` explains a missing `jobs` better than the other way round.
   */
  error(problems: Problem[]): ScenarioError {
    let best: { problem: Problem; rank: number; offset: number } | undefined;
    for (const problem of problems) {
      const { offset, exact } = this.offsetOf(problem.path, problem.atKey === true);
      const rank = exact ? 0 : 1;
      if (best === undefined || rank < best.rank || (rank === best.rank && offset < best.offset))
        best = { problem, rank, offset };
    }
    if (best === undefined) return new ScenarioError(this.file, 1, 1, '', 'invalid scenario');
    const at = (p: Problem, offset: number): ScenarioError => {
      const { line, col } = this.offset(offset);
      return new ScenarioError(this.file, line, col, p.path.join('.'), p.detail);
    };
    // Every other problem too, once each, in file order: a file with three mistakes shows three.
    const seen = new Set<string>();
    const others = problems
      .filter((p) => p !== best.problem)
      .map((p) => at(p, this.offsetOf(p.path, p.atKey === true).offset))
      .filter((e) => !seen.has(e.message) && seen.add(e.message) !== undefined)
      .sort((a, b) => a.line - b.line || a.column - b.column);
    const first = at(best.problem, best.offset);
    const also = others.filter((e) => e.message !== first.message);
    return new ScenarioError(first.file, first.line, first.column, first.field, first.detail, also);
  }

  /** The earliest of yaml's errors, once each points where the author should look. */
  syntaxError(errors: readonly YAMLError[]): ScenarioError {
    let best: { offset: number; detail: string } | undefined;
    for (const e of errors) {
      const placed = this.placeSyntaxError(e);
      if (best === undefined || placed.offset < best.offset) best = placed;
    }
    const { line, col } = this.offset(best?.offset ?? 0);
    return new ScenarioError(this.file, line, col, '', oneLine(best?.detail ?? 'invalid YAML'));
  }

  private placeSyntaxError(e: YAMLError): { offset: number; detail: string } {
    let offset = e.pos[0];
    let detail = e.message;
    if (e.code === 'MISSING_CHAR' && /quote/i.test(e.message)) {
      // yaml reports the end of the file (and complains about escapes on the way, e.g. a
      // backslash in a class name); the opening quote is what the author needs to see.
      visit(this.doc, {
        Scalar(_key, node) {
          const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
          if (quoted && node.range && node.range[1] >= e.pos[0]) {
            offset = node.range[0];
            detail = `${e.message} (the string that starts here is never closed)`;
            return visit.BREAK;
          }
          return undefined;
        },
      });
    } else if (e.code === 'DUPLICATE_KEY') {
      const key = this.keyStartingAt(e.pos[0]);
      if (key !== undefined) detail = `${e.message}: "${key}" appears twice in this mapping`;
    } else if (/call stack/i.test(e.message)) {
      // checkNesting stops what nests too deep before the parser; should anything get past it,
      // yaml's stack overflow is still said in the file's terms.
      detail = `lists and mappings nest too deep to read here (keep them under ${MAX_NESTING} levels)`;
    } else if (e.code === 'BAD_INDENT') {
      // yaml points at the start of the line; the misplaced item is after the blanks.
      while (this.source[offset] === ' ') offset++;
    } else if (e.code === 'BAD_DQ_ESCAPE') {
      detail = `${e.message}; write PHP class names unquoted or in single quotes (backslashes are escapes in double quotes)`;
    } else if (e.code === 'MULTIPLE_DOCS') {
      detail = 'a scenario file holds one YAML document; remove the "---" separator';
    } else if (e.code === 'TAB_AS_INDENT') {
      detail = `${e.message}; indent with spaces`;
    } else if (
      e.code === 'BLOCK_AS_IMPLICIT_KEY' ||
      /Nested mappings are not allowed in compact mappings/.test(e.message)
    ) {
      const item = e.code === 'BLOCK_AS_IMPLICIT_KEY' ? this.misindentedItem(e.pos[0]) : undefined;
      if (item !== undefined) {
        // A list item indented otherwise than the one above it: yaml reads it as a key.
        offset = item.offset;
        detail = `this list item is indented ${spaces(item.indent)}, the item above it (line ${item.aboveLine}) ${spaces(item.aboveIndent)}: items of one list start in the same column`;
      } else {
        // The usual cause: a plain value (a note, a title) that contains ": ".
        detail = `${e.message}; a value containing ": " must be quoted, e.g. note: "tries 3: no release"`;
      }
    }
    return { offset, detail };
  }

  /**
   * The "- " item on the line of `offset` when the nearest item above it (past its own lines) is in
   * another column; undefined otherwise.
   */
  private misindentedItem(
    offset: number,
  ): { offset: number; indent: number; aboveLine: number; aboveIndent: number } | undefined {
    const lines = this.source.split('\n');
    let { line } = this.offset(offset);
    // yaml may point at the blank or comment lines before the item.
    while (line < lines.length && /^\s*(#|$)/.test(lines[line - 1]!)) line++;
    const itemAt = (text: string | undefined): number | undefined => {
      const m = /^( *)-(?: |$)/.exec(text ?? '');
      return m === null ? undefined : m[1]!.length;
    };
    const indent = itemAt(lines[line - 1]);
    if (indent === undefined) return undefined;
    for (let above = line - 1; above >= 1; above--) {
      const text = lines[above - 1]!;
      if (/^\s*(#|$)/.test(text)) continue;
      const aboveIndent = itemAt(text);
      const lead = /^ */.exec(text)![0].length;
      // A line less indented than this item (a key, the list's parent) ends the search.
      if (aboveIndent === undefined && lead <= indent) return undefined;
      if (aboveIndent === undefined) continue;
      if (aboveIndent === indent) return undefined;
      const lineStart = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
      return { offset: lineStart + indent, indent, aboveLine: above, aboveIndent };
    }
    return undefined;
  }

  private keyStartingAt(offset: number): string | undefined {
    let found: string | undefined;
    visit(this.doc, {
      Pair(_key, pair) {
        if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
          found = String(pair.key.value);
          return visit.BREAK;
        }
        return undefined;
      },
    });
    return found;
  }

  /**
   * Offset of the node at `path`, else of its nearest existing ancestor. With `atKey`, the
   * key that names the last segment (an unknown field is the key, not its value).
   */
  private offsetOf(path: Path, atKey: boolean): { offset: number; exact: boolean } {
    let node: unknown = this.doc.contents;
    let keyNode: unknown;
    let depth = 0;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(this.doc);
      let next: unknown;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
        if (pair === undefined) break;
        keyNode = pair.key;
        next = pair.value ?? pair.key;
      } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
        keyNode = undefined;
        next = node.items[segment];
      } else {
        break;
      }
      node = next;
      depth++;
    }
    const exact = depth === path.length;
    const target = atKey && exact && keyNode !== undefined ? keyNode : node;
    return { offset: rangeStart(target) ?? 0, exact };
  }
}

function spaces(n: number): string {
  return n === 1 ? '1 space' : `${n} spaces`;
}

function rangeStart(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: unknown }).range;
  return Array.isArray(range) && typeof range[0] === 'number' ? range[0] : undefined;
}

/** Nesting deeper than MAX_NESTING would overflow the parser's stack ("Maximum call stack size exceeded"). */
function checkNesting(source: string, file: string): void {
  const deep = nestingTooDeep(source);
  if (deep !== null) {
    throw new ScenarioError(
      file,
      deep.line,
      deep.col,
      '',
      `lists and mappings nest too deep here (more than ${MAX_NESTING} levels)`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Cross references: what zod cannot see, because it spans fields.

/** The checks zod cannot make (they span fields); runScenario applies them to specs built in code. */
export function crossReferenceProblems(spec: ScenarioSpec): Problem[] {
  const problems: Problem[] = [];
  const connections = Object.keys(spec.connections);
  const jobs = Object.keys(spec.jobs);
  const unknown = (what: string, value: string, known: string[]): string => {
    const hint = didYouMean(value, known);
    const listed = known.length > 0 ? ` (defined: ${known.join(', ')})` : ` (no ${what} is defined)`;
    return `unknown ${what} "${value}"${hint || listed}`;
  };

  for (const [name, connection] of Object.entries(spec.connections)) {
    if (!isQueueName(connection.queue)) {
      problems.push({ path: ['connections', name, 'queue'], detail: singleQueue(connection.queue) });
    }
  }

  const workerIndex = new Map<string, number>();
  spec.workers.forEach((worker, i) => {
    if (worker.name === DISPATCHER) {
      problems.push({
        path: ['workers', i, 'name'],
        detail: `"${DISPATCHER}" is the actor that dispatches jobs; give the worker another name`,
      });
    } else if (worker.name === ARTISAN_ACTOR) {
      problems.push({
        path: ['workers', i, 'name'],
        detail: `"${ARTISAN_ACTOR}" is the actor that runs php artisan commands; give the worker another name`,
      });
    } else if (workerIndex.has(worker.name)) {
      problems.push({
        path: ['workers', i, 'name'],
        detail: `duplicate worker name "${worker.name}" (also workers.${workerIndex.get(worker.name)})`,
      });
    } else {
      workerIndex.set(worker.name, i);
    }
    if (worker.connection !== undefined && !connections.includes(worker.connection)) {
      problems.push({
        path: ['workers', i, 'connection'],
        detail: unknown('connection', worker.connection, connections),
      });
    }
    if (worker.queue !== undefined && !worker.queue.split(',').every(isQueueName)) {
      problems.push({
        path: ['workers', i, 'queue'],
        detail: `expected comma-separated queue names, got ${show(worker.queue)}`,
      });
    }
  });
  const workers = [...workerIndex.keys()];
  problems.push(...workerOptionProblems(spec));
  problems.push(...jobClassProblems(spec, unknown));
  problems.push(...versionProblems(spec, getProfile(spec.laravel), `this scenario is Laravel ${spec.laravel}`));

  const ctx: CheckContext = { spec, profile: getProfile(spec.laravel), jobs, connections, workers, unknown };
  let dispatched = 0;
  let reportedTotal = false;
  spec.timeline.forEach((entry, i) => {
    if (spec.until !== undefined && entry.at > spec.until) {
      problems.push({
        path: ['timeline', i, 'at'],
        detail: `at ${entry.at} is after until (${spec.until}); the run stops before it`,
      });
    }
    const kind = kindOf(entry);
    problems.push(...kind.check(entry, ['timeline', i], ctx));
    dispatched += kind.dispatches(entry);
    if (dispatched > MAX_TOTAL_DISPATCHES && !reportedTotal) {
      reportedTotal = true;
      problems.push({
        path: ['timeline', i, 'count'],
        detail: `the timeline dispatches ${dispatched} jobs by here; at most ${MAX_TOTAL_DISPATCHES} in total`,
      });
    }
  });
  return problems;
}
