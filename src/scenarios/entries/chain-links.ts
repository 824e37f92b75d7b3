// The jobs of a chain as a scenario writes them: the dispatch entry's `chain:` (->chain()) and the
// chain entry (Bus::chain()) share them. Each is a job from jobs:, or a mapping with what
// ->onQueue() / ->onConnection() / ->delay() set on `new <Job>` before it was chained.
import { z } from 'zod';
import type { ChainLink, JobDefinition } from '../../sim/dispatcher.ts';
import { isQueueName, lazy, name, seconds, singleQueue } from '../fields.ts';
import type { Path, Problem } from '../schema-issues.ts';
import type { CheckContext } from './kind.ts';

const LinkObject = lazy(() =>
  z
    .object({
      job: name().describe('a job from jobs:'),
      queue: z
        .string()
        .min(1)
        .optional()
        .describe('->onQueue() on this job (default: the chain queue, else the connection queue)'),
      connection: name()
        .optional()
        .describe('->onConnection() on this job (default: the chain connection, else the first)'),
      delay: seconds('->delay() on this job: when its turn comes, it is pushed to :delayed').optional(),
    })
    .strict(),
);

const Link = lazy(() =>
  z
    .union([name().describe('a job from jobs:'), LinkObject()])
    .describe(
      'a job from jobs:, or { job, queue, connection, delay }: what ->onQueue/->onConnection/->delay set on it',
    ),
);

/** The jobs of a chain, in the order they run. */
export const chainLinks = (what: string) => z.array(Link()).min(1).describe(what);

export type ChainLinkSpec = z.output<ReturnType<typeof Link>>;

/** A link as a mapping: a bare name is `{ job: name }`. */
export function linkFields(l: ChainLinkSpec): z.output<ReturnType<typeof LinkObject>> {
  return typeof l === 'string' ? { job: l } : l;
}

/** The links as the model's Dispatcher takes them; `define` turns a job name into its JobDefinition. */
export function toChainLinks(links: ChainLinkSpec[], define: (job: string) => JobDefinition): ChainLink[] {
  return links.map((l) => {
    const { job, ...set } = linkFields(l);
    return { job: define(job), ...set };
  });
}

/** Queue names the links put jobs on. */
export function linkQueues(links: ChainLinkSpec[]): string[] {
  return links.flatMap((l) => {
    const q = linkFields(l).queue;
    return q === undefined ? [] : [q];
  });
}

/** Connections the links name (->onConnection() on a job of the chain). */
export function linkConnections(links: ChainLinkSpec[]): string[] {
  return links.flatMap((l) => {
    const c = linkFields(l).connection;
    return c === undefined ? [] : [c];
  });
}

/** What zod cannot see: each link names a job and a connection of the file, and one queue. */
export function checkLinks(links: ChainLinkSpec[], path: Path, ctx: CheckContext): Problem[] {
  const problems: Problem[] = [];
  links.forEach((l, i) => {
    const f = linkFields(l);
    const at: Path = typeof l === 'string' ? [...path, i] : [...path, i, 'job'];
    if (!ctx.jobs.includes(f.job)) problems.push({ path: at, detail: ctx.unknown('job', f.job, ctx.jobs) });
    else if (ctx.spec.jobs[f.job]!.command !== null) problems.push({ path: at, detail: verbatim(f.job) });
    if (f.connection !== undefined && !ctx.connections.includes(f.connection)) {
      problems.push({
        path: [...path, i, 'connection'],
        detail: ctx.unknown('connection', f.connection, ctx.connections),
      });
    }
    if (f.queue !== undefined && !isQueueName(f.queue))
      problems.push({ path: [...path, i, 'queue'], detail: singleQueue(f.queue) });
  });
  return problems;
}

/** A job whose data.command is given verbatim cannot be chained: its command is not built from the object. */
export function verbatim(job: string): string {
  return `job ${job} gives data.command verbatim; a chain is serialized from the job objects (Queueable::chain), so its jobs cannot`;
}
