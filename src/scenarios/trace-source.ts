// The trace sources that run scenarios, for `lqsim diff`, `lqsim check` and resolveTrace():
// `scenario:<name or file>[@<profile>]`, and the same without the prefix for any operand that is
// no golden or ndjson file (src/trace/source.ts asks this module last). Importing this module
// registers both; the scenarios run on the Redis the caller's SourceContext provides.
import { isProfileName, PROFILE_NAMES } from '../sim/profiles/index.ts';
import { normaliseTrace } from '../trace/normalise.ts';
import type { ResolvedTrace, SourceContext } from '../trace/source.ts';
import { registerFallbackTraceResolver, registerTraceResolver, TraceSourceError } from '../trace/source.ts';
import { fromTimeline } from '../trace/trace-like.ts';
import { isFile } from '../files.ts';
import { resolveScenario } from './catalog.ts';
import { checkProfileOverride, loadScenarioFile } from './load.ts';
import { runScenario } from './runner.ts';
import { plural } from '../output/describe.ts';

/** Runs `<scenario>[@<profile>]` and normalises its timeline. */
export async function scenarioTrace(operand: string, ctx: SourceContext): Promise<ResolvedTrace> {
  let name = operand;
  let profile: string | undefined;
  const at = operand.lastIndexOf('@');
  if (at > 0 && !(await isFile(operand))) {
    name = operand.slice(0, at);
    profile = operand.slice(at + 1);
    if (!isProfileName(profile)) {
      throw new TraceSourceError(
        `${operand}: unknown Laravel profile "${profile}" (known: ${PROFILE_NAMES.join(', ')})`,
      );
    }
  }
  return runScenarioTrace(name, profile, ctx);
}

/** Runs a scenario (name or file) with an optional profile override and normalises its timeline. */
export async function runScenarioTrace(
  nameOrFile: string,
  profile: string | undefined,
  ctx: SourceContext,
): Promise<ResolvedTrace> {
  const file = await resolveScenario(nameOrFile);
  const loaded = await loadScenarioFile(file);
  checkProfileOverride(loaded, profile); // before ctx.redis() starts a server for nothing
  const redis =
    loaded.spec.redis.cluster === true
      ? await (
          ctx.cluster ??
          (() => Promise.reject(new TraceSourceError(`${nameOrFile}: a cluster scenario needs a cluster here`)))
        )()
      : await ctx.redis();
  const timeline = await runScenario(loaded.spec, { redis, laravel: profile, file });
  if (timeline.error)
    throw new Error(
      `${nameOrFile}: the run ended early after ${plural(timeline.steps.length, 'step')}: ${timeline.error}`,
    );
  return {
    label: `${loaded.spec.name}@${timeline.profile}`,
    trace: normaliseTrace(fromTimeline(timeline), { exactDb: ctx.exactDb }),
  };
}

registerTraceResolver('scenario:', scenarioTrace);
registerFallbackTraceResolver(scenarioTrace);
