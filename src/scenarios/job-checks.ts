// A job class's own properties as PHP would have the class declare them, across fields zod sees
// one at a time: an option (tries: 3) is `public $tries = 3;`, so a property of the same name
// (properties: { tries: 3 }) would be declared twice, which PHP refuses ("Cannot redeclare
// X::$tries"), and `declared` must list each of the class's own properties once.
import type { Path, Problem } from './schema-issues.ts';
import type { JobClassSpec, ScenarioSpec } from './schema.ts';

/** A job option's scenario key and the PHP property the class declares for it. */
const OPTIONS = [
  { key: 'tries', php: 'tries', set: (j: JobClassSpec) => j.tries !== null },
  { key: 'timeout', php: 'timeout', set: (j: JobClassSpec) => j.timeout !== null },
  { key: 'backoff', php: 'backoff', set: (j: JobClassSpec) => j.backoff !== null },
  { key: 'max_exceptions', php: 'maxExceptions', set: (j: JobClassSpec) => j.max_exceptions !== null },
  { key: 'fail_on_timeout', php: 'failOnTimeout', set: (j: JobClassSpec) => j.fail_on_timeout },
  {
    key: 'unique.for',
    php: 'uniqueFor',
    set: (j: JobClassSpec) => typeof j.unique === 'object' && j.unique.for !== undefined,
  },
] as const;

/** The PHP names of a job's own properties: the options it sets, then its properties. */
export function ownPropertyNames(job: JobClassSpec): string[] {
  return [...OPTIONS.filter((o) => o.set(job)).map((o) => o.php), ...Object.keys(job.properties)];
}

export function jobClassProblems(
  spec: ScenarioSpec,
  unknown: (what: string, value: string, known: string[]) => string,
): Problem[] {
  const problems: Problem[] = [];
  for (const [name, job] of Object.entries(spec.jobs)) {
    const path: Path = ['jobs', name];
    for (const o of OPTIONS) {
      if (!(o.php in job.properties)) continue;
      problems.push({
        path: [...path, 'properties', o.php],
        detail: o.set(job)
          ? `jobs.${name}.properties.${o.php} and jobs.${name}.${o.key} both declare public $${o.php}, and PHP declares a property once ("Cannot redeclare"): keep jobs.${name}.${o.key}`
          : `public $${o.php} is the job's ${o.key}, which Laravel reads: write it as jobs.${name}.${o.key}, not under properties`,
      });
    }
    if (job.declared !== undefined) problems.push(...declaredProblems(name, job, [...path, 'declared'], unknown));
    const id = typeof job.unique === 'object' ? job.unique.id : undefined;
    if (typeof id === 'object' && !(id.property in job.properties))
      problems.push({
        path: [...path, 'unique', 'id', 'property'],
        detail: `uniqueId() returns $this->${id.property}, which jobs.${name} does not declare: ${unknown(`property of jobs.${name}`, id.property, Object.keys(job.properties))} (give it under properties, with the value each dispatch sets)`,
      });
  }
  return problems;
}

/** `declared`: each of the class's own properties once, and nothing else. */
function declaredProblems(
  name: string,
  job: JobClassSpec,
  path: Path,
  unknown: (what: string, value: string, known: string[]) => string,
): Problem[] {
  const declared = job.declared ?? [];
  if (job.command !== null)
    return [{ path, detail: `jobs.${name} gives a verbatim command, whose properties are in the order it has` }];
  const own = ownPropertyNames(job);
  const problems: Problem[] = [];
  declared.forEach((p, i) => {
    const first = declared.indexOf(p);
    if (first !== i) problems.push({ path: [...path, i], detail: `${p} is listed twice (also declared.${first})` });
    else if (!own.includes(p))
      problems.push({ path: [...path, i], detail: unknown(`own property of jobs.${name}`, p, own) });
  });
  const missing = own.filter((p) => !declared.includes(p));
  if (missing.length > 0)
    problems.push({
      path,
      detail: `declared lists every property the class declares, in its order; missing: ${missing.join(', ')}`,
    });
  return problems;
}
