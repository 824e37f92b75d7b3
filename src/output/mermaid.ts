// The timeline as a Mermaid sequence diagram: the dispatcher and each worker send their commands
// to Redis; commands a Lua script ran are Redis' messages to itself; each step opens with a note
// (its time and title), steps without commands (a job running, a kill) are notes on their actor.
// Text from payloads and scenarios is escaped with Mermaid's entity codes (#59; for `;`, which
// would end the statement, #35; for `#`, #60; for `<`...), so no byte can add a statement or a
// tag; it is terminal-safe too. On a Redis Cluster each node is a participant of its own (node1,
// node2... as the trace names them) instead of one Redis: a command goes to the node that ran it,
// a script's commands are that node's messages to itself.
import type { Step, Timeline, TraceCommand } from '../scenarios/timeline.ts';
import { jobLabels, relTime, summarizeArgs } from './describe.ts';
import { terminalSafe } from './terminal-safe.ts';

const REDIS = 'redis';
/** Message text longer than this is cut (a 100-payload rpush is already one tag). */
const MAX_TEXT = 160;

/** Text for a message, note or participant label: Mermaid's metacharacters as entity codes. */
export function escapeMermaid(s: string): string {
  const text = terminalSafe(s);
  const clipped = [...text].length > MAX_TEXT ? `${[...text].slice(0, MAX_TEXT - 1).join('')}…` : text;
  return clipped.replace(/[#;<>&%]/g, (c) => `#${c.charCodeAt(0)};`);
}

export function renderMermaid(timeline: Timeline): string {
  const labels = jobLabels(timeline);
  const ids = new Map<string, string>();
  const actors = [...new Set(timeline.steps.map((s) => s.actor))];
  // The dispatcher first, then the workers as they first appear.
  actors.sort((a, b) => (a === 'dispatcher' ? -1 : b === 'dispatcher' ? 1 : 0));
  actors.forEach((a, i) => ids.set(a, `A${i}`));
  const out = ['sequenceDiagram'];
  out.push(`    title ${escapeMermaid(`${timeline.scenario.name}: ${timeline.scenario.title}`)}`);
  for (const a of actors) out.push(`    participant ${ids.get(a)} as ${escapeMermaid(a)}`);
  const nodes = clusterNodes(timeline.steps);
  const nodeIds = new Map(nodes.map((n, i) => [n, `N${i}`]));
  const server = (cmd: TraceCommand): string => (cmd.node === undefined ? REDIS : (nodeIds.get(cmd.node) ?? REDIS));
  if (nodes.length === 0) out.push(`    participant ${REDIS} as Redis`);
  for (const [n, id] of nodeIds) out.push(`    participant ${id} as ${escapeMermaid(n)}`);
  const last = nodes.length === 0 ? REDIS : `N${nodes.length - 1}`;
  for (const step of timeline.steps)
    out.push(...stepLines(step, timeline.start, ids.get(step.actor)!, labels, server, last));
  return out.join('\n') + '\n';
}

/** The cluster nodes the trace's commands name, node1 first; none on a single server. */
function clusterNodes(steps: readonly Step[]): string[] {
  const seen = new Set<string>();
  for (const s of steps) for (const c of s.commands) if (c.node !== undefined) seen.add(c.node);
  return [...seen].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

function stepLines(
  step: Step,
  start: number,
  actor: string,
  labels: Map<string, string>,
  server: (cmd: TraceCommand) => string,
  last: string,
): string[] {
  const head = escapeMermaid(`#${step.index} ${relTime(step.t, start)} ${step.title}`);
  if (step.commands.length === 0) return [`    Note over ${actor}: ${head}`];
  const out = [`    Note over ${actor},${last}: ${head}`];
  for (const cmd of step.commands) out.push(messageLine(cmd, actor, labels, server(cmd)));
  return out;
}

function messageLine(cmd: TraceCommand, actor: string, labels: Map<string, string>, server: string): string {
  const text = escapeMermaid(summarizeArgs(cmd, labels).join(' '));
  if (cmd.source === 'lua') return `    ${server}->>${server}: [lua] ${text}`;
  // A participant is the actor; a later process of it (a restarted worker) says which.
  const process = cmd.process > 1 ? `[process ${cmd.process}] ` : '';
  return `    ${actor}->>${server}: ${process}${text}`;
}
