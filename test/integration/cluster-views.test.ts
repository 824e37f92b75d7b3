// The cluster views on real runs: a 3-master Redis Cluster started here (redis-server
// --cluster-enabled, `redis-cli --cluster create`), the two cluster scenarios run on it, and what
// the exports and the TUI (80x24 and 160x45) show of them. Where each key lives is asked of Redis
// (CLUSTER KEYSLOT, CLUSTER SLOTS), and the nodes are named here as the tool documents it (node1,
// node2... by lowest slot), not by the tool's own code.
import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement } from 'react';
import { Chalk } from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { nodesFromClusterSlots } from '../../src/redis/cluster-nodes.ts';
import { freePort } from '../../src/redis/local-server.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { allCommands } from '../../src/scenarios/timeline.ts';
import { renderNdjson } from '../../src/output/ndjson.ts';
import { renderStepText, renderText } from '../../src/output/text.ts';
import { formatGolden, parseGolden } from '../../src/trace/golden-text.ts';
import { commandKey, normaliseTrace } from '../../src/trace/normalise.ts';
import { fromTimeline } from '../../src/trace/trace-like.ts';
import { ndjsonTrace } from '../../src/trace/source.ts';
import { App } from '../../src/tui/App.tsx';
import { recordedSession } from '../../src/tui/live-session.ts';
import { renderInTerminal, settle, waitForFrame } from '../tui/fake-terminal.ts';
import { flat, region } from '../tui/screen.ts';

const dir = mkdtempSync(join(tmpdir(), 'lqsim-cluster-views-'));
const servers: ChildProcess[] = [];
let ports: number[] = [];
/** Redis' own answers: a port's label (by lowest slot) and each port's slot ranges. */
const labelOfPort = new Map<number, string>();
let slotRanges: Array<{ first: number; last: number; port: number }> = [];
let hashTag: Timeline;
let plain: Timeline;

const cli = (port: number, ...args: string[]): string =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();

/** The port of the master serving `key`, by CLUSTER KEYSLOT and CLUSTER SLOTS. */
function nodeOfKey(key: string): { node: string; slot: number } {
  const slot = Number(cli(ports[0]!, 'CLUSTER', 'KEYSLOT', key));
  const range = slotRanges.find((r) => slot >= r.first && slot <= r.last)!;
  return { node: labelOfPort.get(range.port)!, slot };
}

async function runOn(file: string): Promise<Timeline> {
  const c = createClient({ url: `redis://127.0.0.1:${ports[0]}`, RESP: 2 });
  await c.connect();
  const nodes = nodesFromClusterSlots(await c.sendCommand(['CLUSTER', 'SLOTS']), (h, p) => `redis://${h}:${p}`);
  c.destroy();
  const loaded = await loadScenarioFile(file);
  return runScenario(loaded.spec, {
    redis: {
      url: nodes[0]!.url,
      owned: true,
      kind: 'local-binary',
      version: cli(ports[0]!, 'INFO', 'server').match(/redis_version:(\S+)/)![1]!,
      describe: () => 'a local Redis Cluster of 3 masters (test)',
      cluster: { nodes, seed: nodes[0]! },
    },
  });
}

beforeAll(async () => {
  ports = [await freePort(), await freePort(), await freePort()];
  for (const port of ports) {
    const cwd = join(dir, String(port));
    execFileSync('mkdir', ['-p', cwd]);
    servers.push(
      spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--save', '', '--appendonly', 'no'],
        { cwd, stdio: 'ignore' },
      ),
    );
  }
  for (const port of ports) {
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      try {
        if (cli(port, 'PING') === 'PONG') break;
      } catch {
        // not listening yet
      }
      await settle(100);
    }
  }
  execFileSync('redis-cli', [
    '--cluster',
    'create',
    ...ports.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  const until = Date.now() + 20_000;
  while (!ports.every((p) => cli(p, 'CLUSTER', 'INFO').includes('cluster_state:ok'))) {
    if (Date.now() > until) throw new Error('the test cluster did not reach cluster_state:ok');
    await settle(200);
  }
  // CLUSTER SLOTS: [first, last, [host, port, id, ...], ...replicas] per range.
  const c = createClient({ url: `redis://127.0.0.1:${ports[0]}`, RESP: 2 });
  await c.connect();
  const reply = (await c.sendCommand(['CLUSTER', 'SLOTS'])) as Array<[number, number, [string, number]]>;
  c.destroy();
  slotRanges = reply.map(([first, last, master]) => ({ first, last, port: Number(master[1]) }));
  const lowest = new Map<number, number>();
  for (const r of slotRanges) lowest.set(r.port, Math.min(lowest.get(r.port) ?? Infinity, r.first));
  [...lowest].sort((a, b) => a[1] - b[1]).forEach(([port], i) => labelOfPort.set(port, `node${i + 1}`));
  plain = await runOn('scenarios/cluster-without-hash-tag.yaml');
  hashTag = await runOn('scenarios/cluster-hash-tag.yaml');
}, 120_000);

afterAll(async () => {
  for (const s of servers) s.kill('SIGKILL');
  await Promise.all(servers.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.once('exit', r)))));
  rmSync(dir, { recursive: true, force: true });
});

const PREFIX = 'laravel_database_';

describe('cluster-hash-tag on a real cluster', () => {
  it("ndjson: every command has its node; a keyed one the slot of its keys, on that slot's node", () => {
    const tagged = nodeOfKey(`${PREFIX}queues:{default}`);
    const rows = renderNdjson(hashTag)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      const args = row.args as string[];
      if (args[0] === 'CLUSTER') {
        // Each PHP process asks the seed (node1) for the slot map: no key, no slot.
        expect(Object.keys(row)).toEqual(['step', 't', 'actor', 'process', 'source', 'db', 'node', 'args']);
        expect(row.node).toBe('node1');
      } else {
        expect(Object.keys(row).slice(0, 9)).toEqual([
          'step',
          't',
          'actor',
          'process',
          'source',
          'db',
          'node',
          'slot',
          'args',
        ]);
        expect([row.node, row.slot]).toEqual([tagged.node, tagged.slot]);
      }
    }
  });

  it('golden: every command with its node (and slot), read back as written', () => {
    const tagged = nodeOfKey(`${PREFIX}queues:{default}`);
    const trace = normaliseTrace(fromTimeline(hashTag));
    const text = formatGolden(trace);
    const commandLines = text.split('\n').filter((l) => l.startsWith('  '));
    expect(commandLines.length).toBe(allCommands(hashTag).length);
    for (const l of commandLines)
      expect(l).toMatch(
        l.includes('CLUSTER SLOTS')
          ? /^ {2}\[node1\] CLUSTER SLOTS$/
          : new RegExp(`^ {2}(\\[lua\\] )?\\[${tagged.node} slot ${tagged.slot}\\] `),
      );
    const keys = (t: typeof trace): string[] => t.steps.flatMap((s) => s.commands.map(commandKey));
    expect(keys(parseGolden(text))).toEqual(keys(trace));
  });

  it('ndjson read back (lqsim diff ndjson:) keeps the nodes: the same trace as the golden', async () => {
    const file = join(dir, 'hash-tag.ndjson');
    writeFileSync(file, renderNdjson(hashTag));
    const read = (await ndjsonTrace(file)).trace;
    const keys = (t: typeof read): string[] => t.steps.flatMap((s) => s.commands.map(commandKey));
    expect(keys(read)).toEqual(keys(normaliseTrace(fromTimeline(hashTag))));
    expect(read.steps[0]!.commands[0]).toMatchObject({ node: 'node1', args: ['CLUSTER', 'SLOTS'] });
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, renderNdjson(hashTag).replace('"node":"node1"', '"node":1'));
    await expect(ndjsonTrace(bad)).rejects.toThrow(`${bad}:1: node: expected a node's name ("node2")`);
  });

  it("text: the node tag before each of the dispatch's commands", () => {
    const tagged = nodeOfKey(`${PREFIX}queues:{default}`);
    const text = renderStepText(hashTag.steps[0]!, hashTag, { chalk: new Chalk({ level: 0 }) }).split('\n');
    const tag = tagged.node.replace('node', 'n');
    // The push script: RPUSH of the payload onto the queue and of a 1 onto :notify (LuaScripts::push).
    expect(
      text.filter((l) => /^ {4}n\d/.test(l)).map((l) => l.replace(/ (‹SendInvoice#1 attempts:0›|1)$/, '')),
    ).toEqual([
      '    n1 CLUSTER SLOTS',
      `    ${tag} EVAL ‹push› 2 ${PREFIX}queues:{default} ${PREFIX}queues:{default}:notify`,
      `    ${tag}   [lua] rpush ${PREFIX}queues:{default}`,
      `    ${tag}   [lua] rpush ${PREFIX}queues:{default}:notify`,
    ]);
    expect(renderText(hashTag, { chalk: new Chalk({ level: 0 }) })).toContain(
      'a local Redis Cluster of 3 masters (test)',
    );
  });

  it('the TUI at 80x24: n-tags in the trace, the queue under its node and slot in the state pane', async () => {
    const tagged = nodeOfKey(`${PREFIX}queues:{default}`);
    const t = renderInTerminal(
      createElement(App, { session: recordedSession(hashTag), scenario: 'cluster-hash-tag', colour: false }),
      80,
      24,
    );
    try {
      await waitForFrame(t.lastFrame, (f) => f.includes('Redis MONITOR'));
      const trace = region(t.lastFrame(), 'trace', 80, 24);
      expect(trace).toContain('▏ n1 CLUSTER SLOTS');
      expect(trace).toContain(`▏ ${tagged.node.replace('node', 'n')} EVAL ‹push›`);
      // The first step: the payload on the ready list, the empty keys on one line (80x24 is short).
      expect(flat(region(t.lastFrame(), 'state', 80, 24))).toContain(
        `${tagged.node} slot ${tagged.slot} :delayed · :reserved: empty ready 1 SendInvoice#1 attempts 0 :notify 1`,
      );
    } finally {
      t.unmount();
    }
  });

  it('the TUI at 160x45: node and slot in a column', async () => {
    const tagged = nodeOfKey(`${PREFIX}queues:{default}`);
    const t = renderInTerminal(
      createElement(App, { session: recordedSession(hashTag), scenario: 'cluster-hash-tag', colour: false }),
      160,
      45,
    );
    try {
      await waitForFrame(t.lastFrame, (f) => f.includes('Redis MONITOR'));
      const trace = region(t.lastFrame(), 'trace', 160, 45);
      expect(trace).toMatch(/t\+0s dispatcher {2}node1 {11}CLUSTER SLOTS/);
      expect(trace).toContain(`t+0s dispatcher  ${tagged.node} slot ${tagged.slot} EVAL ‹push›`);
    } finally {
      t.unmount();
    }
  });
});

describe('cluster-without-hash-tag on a real cluster', () => {
  it('the state pane lists each key of the queue under its node, with its slot; the job as not queued', async () => {
    const keys = ['', ':delayed', ':reserved', ':notify'].map((s) => nodeOfKey(`${PREFIX}queues:default${s}`));
    // What the scenario is about: the four keys are in four slots (whatever nodes they are on).
    expect(new Set(keys.map((k) => k.slot)).size).toBe(4);
    expect(plain.jobs.map((j) => j.outcome)).toEqual(['not-queued']);
    const t = renderInTerminal(
      createElement(App, { session: recordedSession(plain), scenario: 'cluster-without-hash-tag', colour: false }),
      160,
      45,
    );
    try {
      await waitForFrame(t.lastFrame, (f) => f.includes('Redis MONITOR'));
      const state = flat(region(t.lastFrame(), 'state', 160, 45));
      ['ready', ':delayed', ':reserved', ':notify'].forEach((label, i) =>
        expect(state).toMatch(new RegExp(`${keys[i]!.node} (\\S+ slot \\d+ )*${label} slot ${keys[i]!.slot}`)),
      );
      expect(state).toContain('not queued: SendInvoice#1 (its push threw)');
    } finally {
      t.unmount();
    }
  });

  it('nothing but CLUSTER SLOTS reached Redis, on the seed', () => {
    expect(allCommands(plain).map((c) => [c.node, c.slot, c.args.join(' ')])).toEqual(
      allCommands(plain).map(() => ['node1', undefined, 'CLUSTER SLOTS']),
    );
  });
});
