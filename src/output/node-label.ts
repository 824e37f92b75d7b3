// How every view names a Redis Cluster node: `node2` in full, `n2` where a column is short (the
// TUI's trace at 80x24, the text view's command lines), each node in a bright colour of its own
// (actors are bold, nodes are not; red is kept for failures), so a learner sees a queue's commands
// move (or not) from node to node.
import type { ForegroundColorName } from 'chalk';
import type { TraceCommand } from '../scenarios/timeline.ts';

const NODE_PALETTE: readonly ForegroundColorName[] = [
  'yellowBright',
  'blueBright',
  'magentaBright',
  'greenBright',
  'cyanBright',
  'whiteBright',
];

/** `n2` for `node2`; a label not of that form (a capture's host:port) as it is. */
export function nodeTag(node: string): string {
  const m = /^node(\d+)$/.exec(node);
  return m === null ? node : `n${m[1]}`;
}

/** `node2 slot 5718`; the node alone for a command with no key (CLUSTER SLOTS). */
export function nodeAndSlot(cmd: Pick<TraceCommand, 'node' | 'slot'>): string {
  if (cmd.node === undefined) return '';
  return cmd.slot === undefined ? cmd.node : `${cmd.node} slot ${cmd.slot}`;
}

/** node1 yellow, node2 blue, node3 magenta...: by the node's number, so it is the same on every run. */
export function nodeColour(node: string): ForegroundColorName {
  const m = /^node(\d+)$/.exec(node);
  const i = m === null ? [...node].reduce((h, ch) => (h * 31 + ch.codePointAt(0)!) >>> 0, 7) : Number(m[1]) - 1;
  return NODE_PALETTE[i % NODE_PALETTE.length]!;
}
