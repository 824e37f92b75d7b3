// The views of a run on a Redis Cluster, on a small Timeline built here by hand: the trace pane's
// node column (`n2` at 80x24, `node2 slot 5718` when wide), the state pane's keys grouped by node,
// jobs whose push threw, and the exports' node per command. The slots are Redis' own answers
// (`redis-cli cluster keyslot <key>` on a 3-master cluster whose masters hold 0-5460, 5461-10922
// and 10923-16383), not the tool's: queues:{default} 5718 (node2); queues:default 11255 (node3),
// :delayed 15370 (node3), :reserved 5202 (node1), :notify 7628 (node2). A single server's run
// (no node) must look exactly as before clusters.
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/output/markdown.ts';
import { renderMermaid } from '../../src/output/mermaid.ts';
import { commandToJson } from '../../src/output/ndjson.ts';
import { renderResp } from '../../src/output/resp.ts';
import { renderStepText } from '../../src/output/text.ts';
import type { QueueState, Step, Timeline, TraceCommand } from '../../src/scenarios/timeline.ts';
import { lineText } from '../../src/tui/segments.ts';
import { stateLines } from '../../src/tui/state-lines.ts';
import { buildTraceRows } from '../../src/tui/trace-rows.ts';
import { traceLines } from '../../src/tui/trace-lines.ts';
import { layoutFor, paneBody } from '../../src/tui/layout.ts';
import { formatGolden, parseGolden } from '../../src/trace/golden-text.ts';
import { commandKey, normaliseTrace } from '../../src/trace/normalise.ts';
import { fromTimeline, inferPrefix } from '../../src/trace/trace-like.ts';

const START = 1_700_000_000;
const PUSH = "-- Push the job onto the queue...\nredis.call('rpush', KEYS[1], ARGV[1])";

function command(c: Partial<TraceCommand> & Pick<TraceCommand, 'args'>): TraceCommand {
  return { step: 0, t: START, actor: 'dispatcher', process: 1, source: 'client', db: 0, time: '1.0', ...c };
}

/** dispatch on `{default}`: CLUSTER SLOTS on the seed (node1), the push script on node2. */
const clusterCommands: TraceCommand[] = [
  command({ args: ['CLUSTER', 'SLOTS'], node: 'node1' }),
  command({
    args: ['EVAL', PUSH, '2', 'queues:{default}', 'queues:{default}:notify', 'x'],
    script: 'push',
    node: 'node2',
    slot: 5718,
  }),
  command({ args: ['rpush', 'queues:{default}', 'x'], source: 'lua', node: 'node2', slot: 5718 }),
];
const singleCommands: TraceCommand[] = [
  command({ args: ['EVAL', PUSH, '2', 'queues:default', 'queues:default:notify', 'x'], script: 'push' }),
  command({ args: ['rpush', 'queues:default', 'x'], source: 'lua' }),
];

const emptyQueue = (name: string, prefix = 'queues:'): QueueState => ({
  name,
  keys: {
    ready: `${prefix}${name}`,
    delayed: `${prefix}${name}:delayed`,
    reserved: `${prefix}${name}:reserved`,
    notify: `${prefix}${name}:notify`,
  },
  sizes: { ready: 0, delayed: 0, reserved: 0, notify: 0 },
  ready: [],
  delayed: [],
  reserved: [],
});

const tagged: QueueState = {
  ...emptyQueue('{default}'),
  nodes: { ready: 'node2', delayed: 'node2', reserved: 'node2', notify: 'node2' },
  slots: { ready: 5718, delayed: 5718, reserved: 5718, notify: 5718 },
  sizes: { ready: 1, delayed: 0, reserved: 0, notify: 1 },
  ready: [{ job: 'SendInvoice#1', attempts: 0, raw: 'x' }],
};
const plain: QueueState = {
  ...emptyQueue('default'),
  nodes: { ready: 'node3', delayed: 'node3', reserved: 'node1', notify: 'node2' },
  // `redis-cli cluster keyslot` of queues:default, :delayed, :reserved, :notify.
  slots: { ready: 11255, delayed: 15370, reserved: 5202, notify: 7628 },
};

function step(commands: TraceCommand[], queues: QueueState[]): Step {
  return {
    index: 0,
    t: START,
    actor: 'dispatcher',
    kind: 'dispatch',
    title: 'dispatch SendInvoice#1',
    methods: [],
    commands,
    state: { t: START, queues, workers: [], failed: [], executions: {} },
  };
}

function timeline(commands: TraceCommand[], queues: QueueState[]): Timeline {
  return {
    scenario: { name: 'hand-built', title: 'hand-built' },
    profile: '8',
    start: START,
    server: { kind: 'local-binary', version: '7.0.15', describe: 'a Redis Cluster' },
    steps: [step(commands, queues)],
    jobs: [],
    failed: [],
    warnings: [],
  };
}

/** The trace pane's lines as text, at the pane width and row prefix the layout gives `columns`. */
function traceText(tl: Timeline, columns: number, rows: number): string[] {
  const layout = layoutFor(columns, rows);
  const body = paneBody(layout.traceWidth, layout.mainRows);
  const traceRows = buildTraceRows(tl.steps, 0, { start: START, labels: new Map() });
  return traceLines(traceRows, {
    width: body.width,
    start: START,
    rowPrefix: layout.rowPrefix,
    step: 0,
    selected: null,
  }).map((l) => lineText(l.line));
}

describe('the trace pane on a cluster', () => {
  it('at 80x24 each command row carries a short node tag after the actor bar', () => {
    const lines = traceText(timeline(clusterCommands, [tagged]), 80, 24);
    expect(lines[1]).toBe('▏ n1 CLUSTER SLOTS');
    expect(lines[2]).toMatch(/^▏ n2 EVAL ‹push› queues:\{default\}/);
    // The EVAL wraps (its step is the one shown): its continuation is indented past the node column.
    expect(lines[3]).toBe('▏      queues:{default}:notify x');
    expect(lines.at(-1)).toMatch(/^▏ n2 {3}\[lua\] rpush queues:\{default\}/);
  });

  it('when wide, node and slot (the node alone for CLUSTER SLOTS), in a column', () => {
    const lines = traceText(timeline(clusterCommands, [tagged]), 160, 45);
    expect(lines[1]).toBe('t+0s dispatcher  node1           CLUSTER SLOTS');
    expect(lines[2]).toMatch(/^t\+0s dispatcher {2}node2 slot 5718 EVAL ‹push›/);
  });

  it('a single server keeps its rows as they were: no node column at any size', () => {
    const tl = timeline(singleCommands, [emptyQueue('default')]);
    expect(traceText(tl, 80, 24)[1]).toMatch(/^▏ EVAL ‹push› queues:default/);
    expect(traceText(tl, 160, 45)[1]).toMatch(/^t\+0s dispatcher {2}EVAL ‹push› queues:default/);
  });
});

const stateText = (queues: QueueState[], width: number, jobs: Timeline['jobs'] = []): string[] =>
  stateLines(step([], queues).state, { start: START, jobs }, width, 'full').map(lineText);

describe('the state pane on a cluster', () => {
  it('a hash-tagged queue is one group: its node and the one slot, then its keys', () => {
    expect(stateText([tagged], 60)).toEqual([
      'queues:{default}',
      ' node2 slot 5718',
      '  ready     1',
      '    SendInvoice#1 attempts 0',
      '  :delayed  empty',
      '  :reserved empty',
      '  :notify   1',
    ]);
  });

  it("a plain name's keys spread over the nodes, each key with its slot", () => {
    expect(stateText([plain], 60)).toEqual([
      'queues:default  empty',
      ' node1',
      '  :reserved slot 5202',
      ' node2',
      '  :notify   slot 7628',
      ' node3',
      '  ready     slot 11255',
      '  :delayed  slot 15370',
    ]);
  });

  it('a job whose push threw is listed as not queued, from its dispatch on', () => {
    const job = {
      label: 'SendInvoice#1',
      id: 'x',
      class: 'App\\Jobs\\SendInvoice',
      dispatchedAt: START,
      queue: 'default',
      connection: 'redis',
      outcome: 'not-queued' as const,
      executions: 0,
    };
    expect(stateText([plain], 60, [job])).toContain('not queued: SendInvoice#1 (its push threw)');
    expect(stateText([plain], 60, [{ ...job, dispatchedAt: START + 1 }]).join('\n')).not.toContain('not queued');
    expect(stateText([plain], 60, [{ ...job, outcome: 'pending' }]).join('\n')).not.toContain('not queued');
  });

  it('a single server lists its queue as before', () => {
    expect(stateText([{ ...tagged, nodes: undefined }], 60)).toEqual([
      'queues:{default}',
      '  ready     1',
      '    SendInvoice#1 attempts 0',
      '  :delayed  empty',
      '  :reserved empty',
      '  :notify   1',
    ]);
  });
});

describe('the exports on a cluster', () => {
  it('ndjson: node and slot after db, the node alone for a command with no key', () => {
    expect(commandToJson(clusterCommands[0]!)).toBe(
      '{"step":0,"t":1700000000,"actor":"dispatcher","process":1,"source":"client","db":0,"node":"node1","args":["CLUSTER","SLOTS"]}',
    );
    expect(commandToJson(clusterCommands[2]!)).toBe(
      '{"step":0,"t":1700000000,"actor":"dispatcher","process":1,"source":"lua","db":0,"node":"node2","slot":5718,"args":["rpush","queues:{default}","x"]}',
    );
  });

  it('ndjson: a single server has neither', () => {
    expect(commandToJson(singleCommands[1]!)).toBe(
      '{"step":0,"t":1700000000,"actor":"dispatcher","process":1,"source":"lua","db":0,"args":["rpush","queues:default","x"]}',
    );
  });

  it('text: a node tag before each command, lua lines still indented under their EVAL', () => {
    const tl = timeline(clusterCommands, [tagged]);
    const text = renderStepText(tl.steps[0]!, tl, { chalk: new Chalk({ level: 0 }) }).split('\n');
    expect(text).toContain('    n1 CLUSTER SLOTS');
    expect(text).toContain('    n2 EVAL ‹push› 2 queues:{default} queues:{default}:notify x');
    expect(text).toContain('    n2   [lua] rpush queues:{default} x');
    const single = timeline(singleCommands, [emptyQueue('default')]);
    expect(renderStepText(single.steps[0]!, single, { chalk: new Chalk({ level: 0 }) }).split('\n')).toContain(
      '      [lua] rpush queues:default x',
    );
  });

  it('markdown: a node column on a cluster only', () => {
    const md = renderMarkdown(timeline(clusterCommands, [tagged]));
    expect(md).toContain('| # | sent by | node | command |');
    expect(md).toContain('| 1 | dispatcher | node1 | `CLUSTER SLOTS` |');
    expect(md).toContain('| 3 | Lua script | node2 slot 5718 | `rpush queues:{default} x` |');
    const single = renderMarkdown(timeline(singleCommands, [emptyQueue('default')]));
    expect(single).toContain('| # | sent by | command |');
    expect(single).not.toContain('node');
  });

  it('mermaid: each node a participant; a command goes to its node, a script runs on it', () => {
    const mmd = renderMermaid(timeline(clusterCommands, [tagged])).split('\n');
    expect(mmd).toContain('    participant N0 as node1');
    expect(mmd).toContain('    participant N1 as node2');
    expect(mmd).not.toContain('    participant redis as Redis');
    expect(mmd).toContain('    A0->>N0: CLUSTER SLOTS');
    expect(mmd).toContain('    N1->>N1: [lua] rpush queues:{default} x');
    expect(mmd.find((l) => l.includes('Note over'))).toMatch(/Note over A0,N1:/);
    const single = renderMermaid(timeline(singleCommands, [emptyQueue('default')])).split('\n');
    expect(single).toContain('    participant redis as Redis');
    expect(single).toContain('    redis->>redis: [lua] rpush queues:default x');
  });

  it('resp: the client commands only, as on a single server (no mark of the node)', () => {
    expect(renderResp(timeline(clusterCommands, [tagged])).toString('latin1')).toBe(
      '*2\r\n$7\r\nCLUSTER\r\n$5\r\nSLOTS\r\n' +
        `*6\r\n$4\r\nEVAL\r\n$${PUSH.length}\r\n${PUSH}\r\n$1\r\n2\r\n$16\r\nqueues:{default}\r\n$23\r\nqueues:{default}:notify\r\n$1\r\nx\r\n`,
    );
  });
});

describe('golden traces on a cluster', () => {
  it("keep each command's node and slot, and read them back", () => {
    const trace = normaliseTrace(fromTimeline(timeline(clusterCommands, [tagged])));
    const text = formatGolden(trace);
    expect(text.split('\n')).toEqual(
      expect.arrayContaining(['  [node1] CLUSTER SLOTS', '  [lua] [node2 slot 5718] rpush queues:{default} x']),
    );
    expect(text).toMatch(/\n {2}\[node2 slot 5718\] EVAL "-- Push the job/);
    expect(parseGolden(text).steps).toEqual(
      trace.steps.map(({ index, t, actor, title, commands }) => ({
        index,
        t,
        actor,
        title,
        commands: commands.map(({ script: _script, ...c }) => c),
      })),
    );
  });

  it('compare the node: the same command on another node is another command', () => {
    const [, evalOn2] = normaliseTrace(fromTimeline(timeline(clusterCommands, [tagged]))).steps[0]!.commands;
    expect(commandKey(evalOn2!)).not.toBe(commandKey({ ...evalOn2!, node: 'node3' }));
    expect(commandKey(evalOn2!)).not.toBe(commandKey({ ...evalOn2!, slot: 1 }));
  });

  it('an ndjson or capture of a hash-tagged queue has its prefix found (queues:{default})', () => {
    const rpush = (key: string) => [
      {
        actor: 'dispatcher',
        commands: [{ source: 'client' as const, actor: 'dispatcher', db: 0, args: ['RPUSH', key, 'x'] }],
      },
    ];
    expect(inferPrefix(rpush('laravel_database_queues:{default}'))).toBe('laravel_database_');
    expect(inferPrefix(rpush('queues:{default}'))).toBe('');
    expect(inferPrefix(rpush('laravel_database_queues:default'))).toBe('laravel_database_');
  });

  it("a single server's golden lines are as before", () => {
    const text = formatGolden(normaliseTrace(fromTimeline(timeline(singleCommands, [emptyQueue('default')]))));
    expect(text).toContain('\n  [lua] rpush queues:default x\n');
    expect(text).not.toContain('[node');
  });
});
