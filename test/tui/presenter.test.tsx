// The presenter aids on real runs (issue 12): the premise before step #0, the running-twice alert
// where seed 001's flow puts it, N over idle polls, the workers in view at 80×24, block_for's
// BLPOP answered before the ZADD, a stale ZREM, and b back to the picker.
import { describe, expect, it } from 'vitest';
import { inLearningOrder, listScenarios } from '../../src/scenarios/catalog.ts';
import { App } from '../../src/tui/App.tsx';
import { recordedSession } from '../../src/tui/live-session.ts';
import { layoutFor, paneBody } from '../../src/tui/layout.ts';
import { Root } from '../../src/tui/Root.tsx';
import { lineText } from '../../src/tui/segments.ts';
import { fittedStateLines } from '../../src/tui/state-lines.ts';
import { buildTraceRows } from '../../src/tui/trace-rows.ts';
import { jobLabels } from '../../src/output/describe.ts';
import { idleAt } from '../../src/tui/idle-steps.ts';
import { KEYS, renderInTerminal } from './fake-terminal.ts';
import { flat, region } from './screen.ts';
import { recordScenarios } from './recorded.ts';

const timeline = recordScenarios('retry-after-vs-timeout', 'block-for', 'burst-and-priorities', 'migrate-chunking');

/** The state pane at 80×24, as fitted: the lines that show without scrolling. */
function stateAt80(name: string, index: number): string[] {
  const t = timeline(name);
  const l = layoutFor(80, 24);
  const body = paneBody(l.stateWidth, l.mainRows);
  return fittedStateLines(t.steps[index]!.state, { start: t.start }, body.width, body.rows)
    .slice(0, body.rows)
    .map(lineText);
}

describe('retry-after-vs-timeout (seed 001)', () => {
  // worker-1 pops GenerateReport#1 at t+0 with retry_after 30 and runs 45 s; at t+30 worker-2's
  // migrate moves the expired reservation back and pops it (attempts 2); its handle() starts in the
  // same second, so from that step until worker-1's ZREM at t+45 both are in handle().
  it('alerts at the step where the second handle() starts, and only while both run', () => {
    const t = timeline('retry-after-vs-timeout');
    const second = t.steps.findIndex((s) => s.kind === 'process' && s.actor === 'worker-2');
    expect(t.steps[second - 1]!.kind).toBe('pop'); // worker-2's pop of attempt 2
    const alerted = t.steps.filter((s) => stateAt80('retry-after-vs-timeout', s.index)[0]!.startsWith('!!'));
    expect(alerted.map((s) => s.index)).toEqual([second]);
    expect(stateAt80('retry-after-vs-timeout', second)[0]).toBe('!! GenerateReport#1 running');
  });

  it('at 80×24 the alert, both running workers and their strips show without scrolling', () => {
    const t = timeline('retry-after-vs-timeout');
    const second = t.steps.findIndex((s) => s.kind === 'process' && s.actor === 'worker-2');
    const shown = stateAt80('retry-after-vs-timeout', second).join('\n');
    expect(shown).toContain('worker-1 running');
    expect(shown).toContain('GenerateReport#1 attempt 1');
    expect(shown).toContain('┃ t+30s  end t+45s  ✕ none'); // worker-1 (--once): no alarm, expired at t+30
    expect(shown).toContain('worker-2 running');
    expect(shown).toContain('┃ t+60s  end t+75s  ✕ t+90s');
  });

  it('the narration says it in full', async () => {
    const term = renderInTerminal(
      <App
        session={recordedSession(timeline('retry-after-vs-timeout'))}
        scenario="r"
        colour={false}
        initial={{ target: 7 }}
      />,
      80,
      24,
    );
    await term.press('');
    expect(flat(region(term.lastFrame(), 'narration', 80, 24))).toContain(
      '!! GenerateReport#1 is running twice: worker-1 attempt 1, worker-2 attempt 2',
    );
    term.unmount();
  });

  it('the alert stays at the top of the state pane when it is scrolled (issue 25: while both runs last)', async () => {
    const t = timeline('retry-after-vs-timeout');
    const second = t.steps.findIndex((s) => s.kind === 'process' && s.actor === 'worker-2');
    const term = renderInTerminal(
      <App session={recordedSession(t)} scenario="r" colour={false} initial={{ target: second }} />,
      80,
      24,
    );
    await term.press('');
    await term.press(KEYS.tab, '\u001b[6~'); // tab to the state pane, PgDn
    const state = region(term.lastFrame(), 'state', 80, 24);
    expect(state.split('\n')[0]).toMatch(/↑\d+/); // scrolled
    expect(state.split('\n')[1]).toContain('!! GenerateReport#1 running');
    term.unmount();
  });

  it("worker-1's ZREM of its old copy reads as a stale copy, not attempts 2→1", () => {
    const t = timeline('retry-after-vs-timeout');
    const zrem = t.steps.find((s) => s.actor === 'worker-1' && s.kind === 'delete')!;
    const rows = buildTraceRows(t.steps, zrem.index, { start: t.start, labels: jobLabels(t) }, false);
    const text = rows.map((r) => lineText(r.segments)).join('\n');
    expect(text).toContain('ZREM queues:default:reserved ‹GenerateReport#1 attempts:1 stale copy (now 2)›');
    expect(text).not.toContain('attempts:2→1');
  });
});

describe('the premise and N', () => {
  it('opens on the premise; → shows step #0; P shows it again', async () => {
    const term = renderInTerminal(
      <App
        session={recordedSession(timeline('retry-after-vs-timeout'))}
        scenario="retry-after-vs-timeout"
        colour={false}
        initial={{ overlay: { kind: 'premise', top: 0 } }}
      />,
      80,
      24,
    );
    await term.press('');
    let screen = flat(term.lastFrame());
    expect(screen).toContain('retry_after shorter than the job runs it twice at once');
    expect(screen).toContain('Seed 001: timeout must stay a few seconds shorter than retry_after.');
    expect(screen).toContain('→ to start');
    await term.press(KEYS.right);
    expect(flat(region(term.lastFrame(), 'header', 80, 24))).toContain('step #0');
    expect(flat(term.lastFrame())).toContain('RPUSH queues:default');
    await term.press('P');
    screen = flat(term.lastFrame());
    expect(screen).toContain('the premise');
    term.unmount();
  });

  it('N skips the idle polls of worker-2 and worker-4 (pops that found nothing and changed nothing)', async () => {
    const t = timeline('retry-after-vs-timeout');
    // #3: worker-1's handle() starts; #4, #5 are worker-2 polling an empty queue; #6 its pop of attempt 2.
    expect([4, 5].map((i) => idleAt(t.steps, i))).toEqual([true, true]);
    expect(idleAt(t.steps, 6)).toBe(false);
    const term = renderInTerminal(
      <App session={recordedSession(t)} scenario="r" colour={false} initial={{ target: 3 }} />,
      80,
      24,
    );
    await term.press('N');
    expect(flat(region(term.lastFrame(), 'header', 80, 24))).toContain('step #6');
    term.unmount();
  });
});

describe('80×24: the workers stay in view', () => {
  it('burst-and-priorities while BuildStockReport runs and twenty invoices wait in :delayed', () => {
    const t = timeline('burst-and-priorities');
    const last = [...t.steps]
      .reverse()
      .find((s) => s.kind === 'dispatch' && s.state.workers[0]!.status.kind === 'running')!;
    const shown = stateAt80('burst-and-priorities', last.index).join('\n');
    expect(shown).toContain('worker-1 running');
    expect(shown).toMatch(/▕[█▓░┃✕ ]+▏/);
  });

  it('migrate-chunking at every step: each running worker line is above the fold', () => {
    const t = timeline('migrate-chunking');
    for (const s of t.steps) {
      const shown = stateAt80('migrate-chunking', s.index).join('\n');
      for (const w of s.state.workers) if (w.status.kind === 'running') expect(shown).toContain(`${w.name} running`);
    }
  });
});

describe('block-for (bug 2)', () => {
  it('after the RPUSH the worker holds the job BLPOP gave it; after its ZADD, the reserved job', () => {
    const t = timeline('block-for');
    const push = t.steps.find((s) => s.kind === 'dispatch')!;
    expect(push.state.queues[0]!.sizes).toMatchObject({ ready: 0, reserved: 0 });
    expect(push.state.workers[0]!.status).toEqual({
      kind: 'woken',
      queue: 'default',
      list: 'ready',
      job: 'PublishPost#1',
    });
    expect(flat(stateAt80('block-for', push.index).join('\n'))).toContain(
      'worker-1 BLPOP answered: PublishPost#1 in PHP memory; ZADD :reserved next',
    );
    const zadd = t.steps[push.index + 1]!;
    expect(zadd.commands.map((c) => c.args[0])).toEqual(['ZADD']);
    expect(zadd.state.workers[0]!.status).toEqual({ kind: 'reserved', job: 'PublishPost#1', attempt: 1 });
  });
});

describe('the picker', () => {
  it('lists in learning order, and b goes back to it from the scenario it opened', async () => {
    const entries = await listScenarios();
    const term = renderInTerminal(
      <Root colour={false} session={null} entries={entries} open={() => recordedSession(timeline('block-for'))} />,
      80,
      24,
    );
    await term.press('');
    const ordered = inLearningOrder(entries).map((e) => e.name);
    expect(ordered[0]).toBe('dispatch');
    const list = term.lastFrame();
    expect(list.indexOf('dispatch-later')).toBeLessThan(list.indexOf('failure-release'));
    await term.press(KEYS.down, KEYS.enter); // dispatch-later
    expect(flat(term.lastFrame())).toContain('the premise');
    await term.press(KEYS.right);
    await term.press('b');
    expect(flat(term.lastFrame())).toContain(`2/${entries.length}`);
    term.unmount();
  });
});
