// MONITOR on every node of a cluster, merged into one capture. Each node's MONITOR gives its own
// lines in execution order; a barrier passes on every node (an ECHO through each node's observer),
// and the lines since the last one are merged by the time each node printed (the nodes of the
// tool's cluster share one clock), each line marked with its node (nodeLine: `@node2 <line>`). A
// script's [lua] lines stay right after their EVAL: a block of lines is merged, never split.
//
// The run's commands are sent one after another (a command sent ahead is answered before another
// connection sends: ConnectionHub.othersSettled), so their times on different nodes follow the
// order they ran in. Marks (streaming runs) are not supported: a cluster run takes a barrier after
// every step.
import type { Client } from './connections.ts';
import { nodeLine } from './monitor-line.ts';
import { MonitorCapture } from './monitor.ts';

export interface NodeCapture {
  label: string;
  capture: MonitorCapture;
  /** The tool's connection to that node (ECHO for its barrier). */
  observer: Client;
}

export class ClusterCapture {
  /** Never set: a cluster run is not streamed (MonitorCapture.sink). */
  sink: ((line: string) => void) | null = null;
  onBoundary: (() => void) | null = null;

  private constructor(private readonly nodes: readonly NodeCapture[]) {}

  /** MONITOR on each node, node1 first; if one fails to start, the ones started are stopped. */
  static async start(nodes: ReadonlyArray<{ label: string; url: string; observer: Client }>): Promise<ClusterCapture> {
    const started: NodeCapture[] = [];
    try {
      for (const n of nodes)
        started.push({ label: n.label, observer: n.observer, capture: await MonitorCapture.start(n.url, n.observer) });
    } catch (e) {
      await Promise.all(started.map((s) => s.capture.stop()));
      throw e;
    }
    return new ClusterCapture(started);
  }

  /** Every node's MONITOR lines since the previous barrier, merged in the order they ran, each `@<node> `-marked. */
  async barrier(_observer?: unknown, timeoutMs = 5000): Promise<string[]> {
    const perNode = await Promise.all(this.nodes.map((n) => n.capture.barrier(n.observer, timeoutMs)));
    return mergeNodeLines(this.nodes.map((n, i) => ({ node: n.label, lines: perNode[i]! })));
  }

  mark(): Promise<string[]> {
    return Promise.reject(new Error('a cluster run takes a barrier after each step (no streaming marks)'));
  }

  takeMarks(): string[] {
    return [];
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.capture.stop()));
  }
}

/**
 * Merges per-node MONITOR lines by their timestamps: blocks (a client line and the [lua] lines
 * after it) in time order, equal times in node order; each line marked with its node.
 */
export function mergeNodeLines(nodes: ReadonlyArray<{ node: string; lines: readonly string[] }>): string[] {
  const blocks: Array<{ at: number; order: number; lines: string[] }> = [];
  nodes.forEach(({ node, lines }, order) => {
    let block: { at: number; order: number; lines: string[] } | null = null;
    for (const line of lines) {
      const marked = nodeLine(node, line);
      if (block !== null && isLuaLine(line)) {
        block.lines.push(marked);
        continue;
      }
      block = { at: micros(line), order, lines: [marked] };
      blocks.push(block);
    }
  });
  // Stable: a node's own blocks keep their order (its times never go back within a node).
  blocks.sort((a, b) => a.at - b.at || a.order - b.order);
  return blocks.flatMap((b) => b.lines);
}

/** "1700000000.123456 [..." → microseconds since the epoch (exact below 2^53). */
function micros(line: string): number {
  const dot = line.indexOf('.');
  return Number(line.slice(0, dot)) * 1_000_000 + Number(line.slice(dot + 1, dot + 7));
}

function isLuaLine(line: string): boolean {
  const open = line.indexOf('[');
  const space = line.indexOf(' ', open);
  return line.startsWith('lua]', space + 1);
}
