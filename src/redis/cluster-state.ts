// Whether a node sees a whole, working cluster: its CLUSTER INFO state and which slots its CLUSTER
// SLOTS leaves to no node. The tool's own cluster is waited for until every node says so; someone
// else's (REDIS_CLUSTER_URL) is refused when it does not.
import type { Sender } from './claim-clients.ts';
import { SLOT_COUNT } from './slot.ts';

export interface ClusterView {
  /** CLUSTER INFO's cluster_state: "ok", "fail" ("?" when the line is missing). */
  state: string;
  /** The raw CLUSTER SLOTS reply (nodesFromClusterSlots reads it). */
  slots: unknown;
  /** Masters serving at least one slot. */
  masters: number;
  /** Slots no node serves, as inclusive ranges. */
  uncovered: Array<[number, number]>;
}

export async function clusterView(node: Sender): Promise<ClusterView> {
  const info = String(await node.sendCommand(['CLUSTER', 'INFO']));
  const slots = await node.sendCommand(['CLUSTER', 'SLOTS']);
  const served = new Uint8Array(SLOT_COUNT);
  const masters = new Set<string>();
  for (const entry of Array.isArray(slots) ? (slots as unknown[][]) : []) {
    const [first, last, master] = entry as [number, number, [string, number] | undefined];
    for (let s = Number(first); s <= Number(last) && s < SLOT_COUNT; s++) served[s] = 1;
    if (Array.isArray(master)) masters.add(`${String(master[0])}:${String(master[1])}`);
  }
  const uncovered: Array<[number, number]> = [];
  for (let s = 0; s < SLOT_COUNT; s++) {
    if (served[s] === 1) continue;
    const last = uncovered.at(-1);
    if (last !== undefined && last[1] === s - 1) last[1] = s;
    else uncovered.push([s, s]);
  }
  return { state: /^cluster_state:(\S+)/m.exec(info)?.[1] ?? '?', slots, masters: masters.size, uncovered };
}

/** "cluster_state:fail; no node serves slots 10923-16383 (5461 of 16384)", or '' for a working cluster. */
export function clusterTrouble(view: ClusterView): string {
  const trouble: string[] = [];
  if (view.state !== 'ok') trouble.push(`cluster_state:${view.state}`);
  if (view.uncovered.length > 0) {
    const count = view.uncovered.reduce((n, [a, b]) => n + b - a + 1, 0);
    const ranges = view.uncovered.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
    const shown = ranges.length > 4 ? [...ranges.slice(0, 4), `and ${ranges.length - 4} more ranges`] : ranges;
    trouble.push(`no node serves slots ${shown.join(', ')} (${count} of ${SLOT_COUNT})`);
  }
  return trouble.join('; ');
}
