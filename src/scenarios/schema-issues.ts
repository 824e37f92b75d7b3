// zod issues → problems an author can act on: a path and a short message. Unions are checked
// again against the branch the author evidently meant (has `dispatch` → a dispatch entry; a
// string attempt → succeed | fail | delete): zod's own union error lists every branch's
// complaints, which reads as nonsense.
import { z } from 'zod';
import { didYouMean } from './errors.ts';

export type Path = (string | number)[];

export interface Problem {
  path: Path;
  detail: string;
  /** Point at the key naming the last segment rather than its value (unknown fields, bad names). */
  atKey?: boolean;
}

type Issue = z.core.$ZodIssue;

const TEN_YEARS = 10 * 365 * 24 * 3600;
const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
};

/** Every problem behind `issues` (from `schema.safeParse(data)`); the caller picks which to show. */
export function schemaProblems(issues: readonly Issue[], schema: z.ZodType, data: unknown): Problem[] {
  const problems: Problem[] = [];
  collect(issues, schema, [], data, problems, new Set());
  return withoutExactIntegerBounds(problems);
}

/**
 * zod's int() also checks that a number is an exact integer (|n| <= 2^53 - 1) and says so in its
 * own words ("expected int to be <=9007199254740991"); a field with a bound of its own says more
 * ("<= 100000"), so that problem is dropped wherever another one reports the same field.
 */
function withoutExactIntegerBounds(problems: Problem[]): Problem[] {
  const exact = (p: Problem): boolean => p.detail.includes(String(Number.MAX_SAFE_INTEGER));
  const at = (p: Problem): string => JSON.stringify(p.path);
  const reported = new Set(problems.filter((p) => !exact(p)).map(at));
  return problems.filter((p) => !exact(p) || !reported.has(at(p)));
}

function collect(
  issues: readonly Issue[],
  schema: z.ZodType,
  base: Path,
  data: unknown,
  out: Problem[],
  seen: Set<string>,
): void {
  for (const issue of issues) {
    const rel = issue.path.map((s) => (typeof s === 'number' ? s : String(s)));
    const path = [...base, ...rel];
    const reached = walk(schema, issue.code === 'invalid_key' ? rel.slice(0, -1) : rel);
    if (reached.schema instanceof z.ZodUnion && issue.code !== 'invalid_key') {
      const at = [...base, ...rel.slice(0, reached.depth)];
      const key = JSON.stringify(at);
      if (seen.has(key)) continue;
      seen.add(key);
      const value = valueAt(data, at);
      const options = reached.schema.options as readonly z.ZodType[];
      const branch = chooseBranch(options, value);
      if (branch === undefined) {
        out.push({ path: at, detail: `expected ${alternatives(options)}, got ${show(value)}` });
        continue;
      }
      const result = branch.safeParse(value);
      if (!result.success) {
        const orMapping = !isMapping(value) && options.some((o) => unwrap(o) instanceof z.ZodObject);
        const before = out.length;
        collect(result.error.issues, branch, at, data, out, seen);
        if (orMapping) {
          for (const p of out.slice(before))
            p.detail = p.detail.replace(/^expected (.+?), got/, 'expected $1 or a mapping, got');
        }
        continue;
      }
    }
    const leaf = reached.depth === rel.length ? reached.schema : undefined;
    out.push(...describe(issue, path, leaf, valueAt(data, path)));
  }
}

/** Follows `path` down the schema; stops early at a union (which needs the value to go on). */
function walk(schema: z.ZodType, path: Path): { schema: z.ZodType; depth: number } {
  let s = unwrap(schema);
  for (let i = 0; i < path.length; i++) {
    if (s instanceof z.ZodUnion) return { schema: s, depth: i };
    let next: z.ZodType | undefined;
    if (s instanceof z.ZodObject) next = (s.shape as Record<string, z.ZodType>)[String(path[i])];
    else if (s instanceof z.ZodRecord) next = s.valueType as z.ZodType;
    else if (s instanceof z.ZodArray) next = s.element as z.ZodType;
    if (next === undefined) return { schema: s, depth: i };
    s = unwrap(next);
  }
  return { schema: s, depth: path.length };
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (
      s instanceof z.ZodDefault ||
      s instanceof z.ZodPrefault ||
      s instanceof z.ZodOptional ||
      s instanceof z.ZodNullable
    )
      s = s.unwrap() as z.ZodType;
    // A timeline entry is its object piped into a transform that adds `kind`: the author wrote the object.
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

/**
 * The union member the author meant: for a scalar, the first scalar member; for a mapping, the
 * object member whose own required key (one no other member has) is present; else the member
 * that alone requires a key that is present, though others may allow it (a chain entry's `chain`,
 * which a dispatch entry may carry too); else the member that has no own required key (the
 * catch-all, e.g. a note entry).
 */
function chooseBranch(options: readonly z.ZodType[], value: unknown): z.ZodType | undefined {
  const objects = options.filter((o) => unwrap(o) instanceof z.ZodObject);
  if (!isMapping(value)) {
    const scalars = options.filter((o) => !objects.includes(o));
    if (scalars.length === 1) return scalars[0];
    // A choice of fixed values written as text or as a number (laravel: "8" or 8): the value's type.
    const fixed = scalars.filter((o) => fixedValues(o)?.some((v) => typeof v === typeof value));
    return fixed.length === 1 ? fixed[0] : undefined;
  }
  if (objects.length === 0) return undefined;
  const shapeOf = (o: z.ZodType) => (unwrap(o) as z.ZodObject).shape as Record<string, z.ZodType>;
  const keysOf = (o: z.ZodType) => Object.keys(shapeOf(o));
  const required = (o: z.ZodType) => keysOf(o).filter((k) => !shapeOf(o)[k]!.safeParse(undefined).success);
  const others = (o: z.ZodType) => objects.filter((x) => x !== o);
  const ownRequired = objects.map((o) => required(o).filter((k) => !others(o).flatMap(keysOf).includes(k)));
  const meant = objects.findIndex((_o, i) => ownRequired[i]!.some((k) => Object.hasOwn(value, k)));
  if (meant >= 0) return objects[meant];
  const catchAll = objects[ownRequired.findIndex((keys) => keys.length === 0)];
  const alone = objects.find(
    (o) =>
      o !== catchAll &&
      required(o).some((k) => Object.hasOwn(value, k) && !others(o).some((x) => required(x).includes(k))),
  );
  return alone ?? catchAll ?? objects[0];
}

function describe(issue: Issue, path: Path, leaf: z.ZodType | undefined, value: unknown): Problem[] {
  const last = path[path.length - 1];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = leaf instanceof z.ZodObject ? Object.keys(leaf.shape) : [];
      return issue.keys.map((key) => ({
        path: [...path, key],
        atKey: true,
        detail: `unknown field ${show(key)}${didYouMean(key, allowed) || (allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '')}`,
      }));
    }
    case 'invalid_key': {
      const inner = issue.issues[0];
      const why =
        inner?.code === 'invalid_format' && inner.format === 'regex' && inner.message.startsWith('Invalid string')
          ? `must match ${(inner as { pattern?: string }).pattern ?? 'the allowed pattern'}`
          : (inner?.message ?? issue.message);
      return [{ path, atKey: true, detail: `invalid name ${show(String(last))}: ${why}` }];
    }
    case 'invalid_type': {
      if (value === undefined) return [{ path, detail: `missing required field "${String(last)}"` }];
      const numeric = issue.expected === 'int' || issue.expected === 'number';
      const want = numeric && isInt(leaf) ? 'a whole number' : (EXPECTED[issue.expected] ?? issue.expected);
      let detail = `expected ${want}, got ${show(value)}`;
      if (numeric && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
        detail += ' (write it without quotes)';
      if (issue.expected === 'string' && (typeof value === 'number' || typeof value === 'boolean'))
        detail += ' (put it in quotes)';
      return [{ path, detail }];
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = Number(small ? issue.minimum : issue.maximum);
      if (issue.origin === 'number') {
        const op = small ? (issue.inclusive === false ? '>' : '>=') : issue.inclusive === false ? '<' : '<=';
        const years = !small && bound === TEN_YEARS ? ' (10 years)' : '';
        return [
          {
            path,
            detail: `expected ${isInt(leaf) ? 'a whole number' : 'a number'} ${op} ${bound}${years}, got ${show(value)}`,
          },
        ];
      }
      if (issue.origin === 'string' && small && bound === 1) return [{ path, detail: 'must not be empty' }];
      const unit = issue.origin === 'array' ? 'entr' : issue.origin === 'string' ? 'character' : '';
      if (unit === '') return [{ path, detail: issue.message }];
      const plural = unit === 'entr' ? (bound === 1 ? 'entry' : 'entries') : bound === 1 ? unit : `${unit}s`;
      return [{ path, detail: `expected ${small ? 'at least' : 'at most'} ${bound} ${plural}` }];
    }
    case 'invalid_value': {
      const options = issue.values.map((v) => (typeof v === 'string' ? v : String(v)));
      if (typeof value === 'number' && options.includes(String(value))) {
        return [{ path, detail: `write "${String(value)}" in quotes: YAML reads ${String(value)} as a number` }];
      }
      const hint = typeof value === 'string' ? didYouMean(value, options) : '';
      const want = options.length === 1 ? options[0] : `one of ${options.join(' | ')}`;
      return [{ path, detail: `expected ${want}, got ${show(value)}${hint}` }];
    }
    case 'invalid_format':
      return [
        {
          path,
          detail: /^an? /.test(issue.message)
            ? `expected ${issue.message}, got ${show(value)}`
            : `${show(value)} is not allowed: ${issue.message}`,
        },
      ];
    case 'invalid_union':
      return [{ path, detail: `does not match any allowed form, got ${show(value)}` }];
    default:
      return [{ path, detail: issue.message }];
  }
}

/** The values an enum or a literal allows, or undefined for any other schema. */
function fixedValues(option: z.ZodType): unknown[] | undefined {
  const o = unwrap(option);
  if (o instanceof z.ZodEnum) return o.options;
  if (o instanceof z.ZodLiteral) return [...o.values];
  return undefined;
}

/** "text, a number, true or false or null": what a union accepts, for a value none of its members fits. */
function alternatives(options: readonly z.ZodType[]): string {
  const kinds = options.map((option) => {
    const o = unwrap(option);
    if (o instanceof z.ZodObject) return 'a mapping';
    if (o instanceof z.ZodString) return 'text';
    if (o instanceof z.ZodNumber) return o.isInt ? 'a whole number' : 'a number';
    if (o instanceof z.ZodBoolean) return 'true or false';
    if (o instanceof z.ZodNull) return 'null';
    if (o instanceof z.ZodEnum) return o.options.map(String).join(' | ');
    if (o instanceof z.ZodLiteral) return o.values.size === 1 ? String([...o.values][0]) : 'a fixed value';
    return 'another form';
  });
  // The same choices as text and as numbers (laravel: "8" or 8) are shown once, as text.
  const texts = new Set(options.flatMap((o) => (unwrap(o) instanceof z.ZodEnum ? fixedValues(o)!.map(String) : [])));
  const asText = (o: z.ZodType): boolean =>
    unwrap(o) instanceof z.ZodLiteral && fixedValues(o)!.every((v) => texts.has(String(v)));
  const unique = [...new Set(kinds.filter((_k, i) => !asText(options[i]!)))];
  return unique.length <= 1
    ? (unique[0] ?? 'another form')
    : `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1]}`;
}

function isInt(schema: z.ZodType | undefined): boolean {
  return schema instanceof z.ZodNumber && schema.isInt;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(data: unknown, path: Path): unknown {
  let v = data;
  for (const segment of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, segment)) return undefined;
    v = (v as Record<string | number, unknown>)[segment];
  }
  return v;
}

/** A value as an error message shows it: short and on one line. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const short = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    // Raw when that is unambiguous: App\Jobs\Send reads better than App\\Jobs\\Send.
    return /["\u0000-\u001f\u007f]/.test(short) ? JSON.stringify(short) : `"${short}"`;
  }
  return String(value);
}
