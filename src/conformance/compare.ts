// `lqsim conformance`: one scenario through the tool's model (profile 8) and through real Laravel
// 8.83, both normalised, compared step by step. Also the `laravel:<scenario>` trace source, so
// `lqsim diff dispatch@8 laravel:dispatch` shows the same comparison in full.
import type { RedisTarget } from '../scenarios/runner.ts';
import { runScenario } from '../scenarios/runner.ts';
import { isDeepStrictEqual } from 'node:util';
import { kindOf } from '../scenarios/entries/index.ts';
import type { JobClassSpec, ScenarioSpec } from '../scenarios/schema.ts';
import { resolveScenario } from '../scenarios/catalog.ts';
import { loadScenarioFile } from '../scenarios/load.ts';
import type { TraceDiff } from '../trace/diff.ts';
import { diffTraces, isIdentical } from '../trace/diff.ts';
import type { NormalisedTrace } from '../trace/normalise.ts';
import { normaliseTrace } from '../trace/normalise.ts';
import type { SourceContext } from '../trace/source.ts';
import { registerTraceResolver } from '../trace/source.ts';
import '../scenarios/trace-source.ts'; // the scenario sources, registered wherever laravel: is
import type { TraceLike } from '../trace/trace-like.ts';
import { fromSteps, fromTimeline } from '../trace/trace-like.ts';
import type { Timeline, TraceCommand } from '../scenarios/timeline.ts';
import type { RealFailedJob, RealRun } from './real-laravel.ts';
import { runWithRealLaravel } from './real-laravel.ts';
import { getProfile } from '../sim/profiles/index.ts';
import { CONFORMANCE_PROFILE } from './profile.ts';

export { CONFORMANCE_PROFILE };

export type ConformanceResult =
  | { scenario: string; status: 'identical'; steps: number; commands: number; trace: NormalisedTrace }
  /** The traces differ (diff), or the outcomes do (failed_jobs records, handle() counts), or both. */
  | {
      scenario: string;
      status: 'different';
      diff: TraceDiff;
      outcomes: string[];
      tool: NormalisedTrace;
      real: NormalisedTrace;
    }
  | { scenario: string; status: 'not-comparable'; reason: string }
  | { scenario: string; status: 'error'; message: string };

/**
 * Why real Laravel cannot play this scenario as written, or null. Pure: read from the scenario's
 * features, so a new scenario is judged by the same rules.
 */
export function notComparableReason(spec: ScenarioSpec): string | null {
  const verbatim = Object.entries(spec.jobs).find(([, j]) => j.command !== null);
  if (verbatim)
    return `job ${verbatim[0]} gives data.command verbatim: Laravel builds it by serializing a job object, so its dispatch cannot send those bytes`;
  if (spec.redis.client === 'predis')
    return "redis.client is predis: the harness runs Debian's Laravel with phpredis (Predis is not packaged with it)";
  // One PHP class is one definition: jobs sharing a class must declare the same properties and
  // do the same on every attempt, or real Laravel cannot tell them apart.
  const byClass = new Map<string, [string, JobClassSpec]>();
  for (const [name, job] of Object.entries(spec.jobs)) {
    const first = byClass.get(job.class);
    if (first === undefined) byClass.set(job.class, [name, job]);
    else if (!isDeepStrictEqual(first[1], job)) {
      return `jobs ${first[0]} and ${name} share the class ${job.class} but differ: one PHP class has one definition, so real Laravel cannot tell them apart`;
    }
  }
  for (const e of spec.timeline) {
    const reason = kindOf(e).notComparable(e, spec);
    if (reason) return reason;
  }
  return null;
}

/** A real run as the normaliser's input. */
export function realTraceLike(run: RealRun, prefix: string): TraceLike {
  return {
    start: run.start,
    prefix,
    meta: { scenario: run.scenario, profile: 'laravel 8.83 (real)' },
    steps: fromSteps(run.steps),
  };
}

export async function realTrace(
  spec: ScenarioSpec,
  redis: RedisTarget,
): Promise<{ trace: NormalisedTrace; run: RealRun }> {
  const run = await runWithRealLaravel(spec, { redis });
  if (run.error)
    throw new Error(`${spec.name}: real Laravel's run ended early after ${run.steps.length} steps: ${run.error}`);
  return {
    trace: normaliseTrace(realTraceLike(run, spec.redis.prefix ?? getProfile(CONFORMANCE_PROFILE).defaultPrefix), {
      exactMicrotime: true,
    }),
    run,
  };
}

/**
 * What is not on the wire but shown to learners: the failed_jobs records (in order: connection,
 * queue, exception class and message) and how many times each job class's handle() started.
 * Pure; one line per difference.
 */
export function outcomeDifferences(
  tool: Pick<Timeline, 'failed' | 'jobs'>,
  real: Pick<RealRun, 'failed' | 'executions'>,
): string[] {
  const out: string[] = [];
  const show = (f: RealFailedJob | undefined) =>
    f ? `${f.exception} "${f.message}" on ${f.connection}/${f.queue}` : 'none';
  const toolFailed: RealFailedJob[] = tool.failed.map((f) => ({
    connection: f.connection,
    queue: f.queue,
    exception: f.exception,
    message: f.message,
  }));
  for (let i = 0; i < Math.max(toolFailed.length, real.failed.length); i++) {
    const a = show(toolFailed[i]);
    const b = show(real.failed[i]);
    if (a !== b) out.push(`failed job ${i + 1}: tool ${a}; laravel ${b}`);
  }
  const toolRuns: Record<string, number> = {};
  for (const j of tool.jobs) if (j.executions > 0) toolRuns[j.class] = (toolRuns[j.class] ?? 0) + j.executions;
  for (const c of [...new Set([...Object.keys(toolRuns), ...Object.keys(real.executions)])].sort()) {
    if ((toolRuns[c] ?? 0) !== (real.executions[c] ?? 0))
      out.push(`${c} handle() ran: tool ${toolRuns[c] ?? 0}, laravel ${real.executions[c] ?? 0}`);
  }
  return out;
}

/**
 * On a Redis Cluster, which node saw each command, compared command for command in run order (the
 * normalised traces say what was sent, not where). Only when both runs sent as many commands: a
 * trace that differs is shown by its diff. Pure; one line per difference, the first few.
 */
export function nodeDifferences(
  tool: ReadonlyArray<{ commands: readonly TraceCommand[] }>,
  real: ReadonlyArray<{ commands: readonly TraceCommand[] }>,
): string[] {
  const a = tool.flatMap((s) => s.commands);
  const b = real.flatMap((s) => s.commands);
  if (a.length !== b.length) return [];
  const out: string[] = [];
  a.forEach((c, i) => {
    const r = b[i]!;
    if (c.node !== r.node && out.length < 5)
      out.push(
        `command ${i + 1} (${c.args[0]}, step ${c.step} / ${r.step}) ran on: tool ${c.node ?? 'the one server'}, laravel ${r.node ?? 'the one server'}`,
      );
  });
  return out;
}

/**
 * What the app's dispatch() threw (a cluster's client refusing the push): the model's instances
 * left not queued, each told in its step's title, against the calls of real Laravel's requests
 * that threw. Pure; one line per difference.
 */
export function thrownDifferences(tool: Pick<Timeline, 'jobs' | 'steps'>, real: Pick<RealRun, 'thrown'>): string[] {
  const notQueued = tool.jobs.filter((j) => j.outcome === 'not-queued').length;
  if (notQueued !== real.thrown.length)
    return [`dispatches that threw to the app: tool ${notQueued}, laravel ${real.thrown.length}`];
  return real.thrown
    .filter((t) => !tool.steps.some((s) => s.title.includes(`threw ${t.exception}: ${t.message}`)))
    .map((t) => `laravel's dispatch threw ${t.exception} "${t.message}"; no step of the tool's says so`);
}

/** `profile` other than 8 is for showing that the comparison sees a difference (tests, demos). */
export async function conformScenario(
  spec: ScenarioSpec,
  redis: RedisTarget,
  opts: { file?: string; profile?: string } = {},
): Promise<ConformanceResult> {
  const reason = notComparableReason(spec);
  if (reason) return { scenario: spec.name, status: 'not-comparable', reason };
  try {
    const timeline = await runScenario(spec, { redis, laravel: opts.profile ?? CONFORMANCE_PROFILE, file: opts.file });
    if (timeline.error)
      throw new Error(`the tool's run ended early after ${timeline.steps.length} steps: ${timeline.error}`);
    // Both sides on the virtual clock: microtime(true) compared to the millisecond.
    const tool = normaliseTrace(fromTimeline(timeline), { exactMicrotime: true });
    const { trace: real, run } = await realTrace(spec, redis);
    const diff = diffTraces(tool, real);
    const outcomes = [
      ...outcomeDifferences(timeline, run),
      ...thrownDifferences(timeline, run),
      ...nodeDifferences(timeline.steps, run.steps),
    ];
    if (isIdentical(diff) && outcomes.length === 0) {
      return {
        scenario: spec.name,
        status: 'identical',
        steps: tool.steps.length,
        commands: tool.steps.reduce((n, s) => n + s.commands.length, 0),
        trace: tool,
      };
    }
    return { scenario: spec.name, status: 'different', diff, outcomes, tool, real };
  } catch (e) {
    return { scenario: spec.name, status: 'error', message: e instanceof Error ? e.message : String(e) };
  }
}

/** Where a scenario runs: a Redis Cluster for one that says `redis.cluster`, else the one server. */
export async function targetFor(spec: ScenarioSpec, ctx: SourceContext): Promise<RedisTarget> {
  if (spec.redis.cluster !== true) return ctx.redis();
  if (ctx.cluster === undefined) throw new Error(`${spec.name} says redis.cluster: it needs a cluster here`);
  return ctx.cluster();
}

registerTraceResolver('laravel:', async (rest, ctx) => {
  const loaded = await loadScenarioFile(await resolveScenario(rest));
  const reason = notComparableReason(loaded.spec);
  if (reason) throw new Error(`${rest}: real Laravel cannot play it: ${reason}`);
  return {
    label: `laravel:${loaded.spec.name} (real 8.83)`,
    trace: (await realTrace(loaded.spec, await targetFor(loaded.spec, ctx))).trace,
  };
});
