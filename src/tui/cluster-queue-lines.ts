// A queue's keys on a Redis Cluster, grouped under the node that holds them: with a hash tag
// (`queues:{default}`) every key hashes to one slot and the queue is one group, `node2 slot 5718`;
// a plain name spreads them over slots, maybe over nodes, and each key line then says its slot,
// which is why Laravel's scripts over two of them are refused. Pure; state-lines.ts lays out the rest.
import { terminalSafe } from '../output/terminal-safe.ts';
import type { QueueState } from '../scenarios/timeline.ts';
import type { Line } from './segments.ts';
import { nodeSeg, pad, seg } from './segments.ts';

/** One of a queue's keys as the state pane lists it: its label, size and entry lines. */
export interface QueueKeyLines {
  field: keyof QueueState['keys'];
  label: string;
  size: number;
  entries: Line[];
}

const KEY_COLUMN = 10;

/**
 * The key lines of a queue, under a line per node: `node2 slot 5718` when all the queue's keys are
 * in that one slot; else the node alone, each key line ending in its slot. `merge`: the empty keys
 * of a one-slot queue are said on one line (the state pane's denser forms); `empty`: the whole
 * queue is, so a one-slot queue shows its node alone and a spread one each key's slot.
 */
export function clusterQueueLines(
  q: QueueState,
  keys: readonly QueueKeyLines[],
  o: { merge: boolean; empty: boolean },
): Line[] {
  const nodes = q.nodes;
  if (nodes === undefined) return [];
  const groups = new Map<string, QueueKeyLines[]>();
  for (const k of keys) {
    const node = nodes[k.field] ?? '?';
    groups.set(node, [...(groups.get(node) ?? []), k]);
  }
  const slots = new Set(keys.map((k) => slotOf(q, k)));
  const one = slots.size === 1;
  const out: Line[] = [];
  for (const [node, group] of [...groups].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))) {
    out.push([seg(' '), nodeSeg(node, terminalSafe(one ? `${node} slot ${[...slots][0]}` : node))]);
    if (o.empty) {
      if (!one) for (const k of group) out.push(keyLine(k, slotOf(q, k), true));
      continue;
    }
    if (o.merge && one) {
      const empties = group.filter((k) => k.size === 0).map((k) => k.label);
      if (empties.length > 0) out.push([seg(`  ${empties.join(' · ')}: empty`, 'dim')]);
    }
    for (const k of group) {
      if (o.merge && one && k.size === 0) continue;
      out.push(keyLine(k, one ? null : slotOf(q, k), false));
      out.push(...k.entries);
    }
  }
  return out;
}

function slotOf(q: QueueState, k: QueueKeyLines): number | null {
  return q.slots?.[k.field] ?? null;
}

/** `  :delayed  2  slot 5080`: the slot only when the queue's keys are in several. */
function keyLine(k: QueueKeyLines, slot: number | null, sizeless: boolean): Line {
  const size: Line = sizeless ? [] : [seg(k.size === 0 ? 'empty' : String(k.size), k.size === 0 ? 'dim' : 'bold')];
  return [
    seg(`  ${pad(k.label, KEY_COLUMN)}`, k.size === 0 ? 'dim' : 'plain'),
    ...size,
    ...(slot === null ? [] : [seg(`${sizeless ? '' : '  '}slot ${slot}`, 'dim')]),
  ];
}
