// What a learner sees at chosen steps of two real runs, stepping with the keys. ink-testing-
// library renders 100 columns; our terminal-size hook reads its missing rows as 24.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/tui/App.tsx';
import { recordedSession } from '../../src/tui/live-session.ts';
import { recordScenarios } from './recorded.ts';
import { KEYS, renderInTerminal, settle, settleFrame, waitForFrame } from './fake-terminal.ts';
import type { Region } from './screen.ts';
import { flat, region } from './screen.ts';

const timeline = recordScenarios('timeout-max-attempts', 'retry-after-vs-timeout', 'migrate-chunking');

/** The App over a recorded run in ink-testing-library (100×24). */
async function open(name: string) {
  const r = render(<App session={recordedSession(timeline(name))} scenario={name} colour={false} />);
  await settle();
  const frame = (): string => r.lastFrame() ?? '';
  return {
    frame,
    see: (which: Region): string => flat(region(frame(), which, 100, 24)),
    press: async (...keys: string[]) => {
      for (const k of keys) {
        r.stdin.write(k);
        await settleFrame(frame);
      }
    },
    unmount: r.unmount,
  };
}

describe('timeout-max-attempts, stepped with the keys', () => {
  it('opens at the dispatch: RPUSH of the payload with attempts 0, the job on the ready list', async () => {
    const app = await open('timeout-max-attempts');
    expect(app.see('header')).toContain('step #0 · t+0s');
    expect(app.see('trace')).toContain('#0 t+0s dispatcher dispatch ImportCsv#1 onto queues:default');
    expect(app.see('trace')).toContain('RPUSH queues:default ‹ImportCsv#1 attempts:0›');
    expect(app.see('state')).toContain('ready 1 ImportCsv#1 attempts 0');
    expect(app.see('state')).toContain('worker-1 not started yet');
    expect(app.see('narration')).toContain('Bus\\Dispatcher::dispatchToQueue → RedisQueue::pushRaw');
    expect(app.see('narration')).toContain('note: A web request dispatches the job');
    expect(app.see('footer')).toMatch(/→ next .*← prev .*enter details .*i info .*\? more .*q quit/);
    app.unmount();
  });

  it('→ shows the pop: the zadd of the reserved copy with attempts 0→1, due at t+90s', async () => {
    const app = await open('timeout-max-attempts');
    await app.press(KEYS.right);
    expect(app.see('header')).toContain('step #1 · t+0s');
    expect(app.see('trace')).toContain('EVAL ‹pop› queues:default queues:default:reserved t+90s');
    expect(app.see('trace')).toContain('[lua] zadd queues:default:reserved t+90s ‹ImportCsv#1 attempts:0→1›');
    expect(app.see('state')).toContain(':reserved 1 ImportCsv#1 attempts 1 t+90s · expires in 90s');
    expect(app.see('narration')).toContain('LuaScripts::migrateExpiredJobs');
    app.unmount();
  });

  it('at the kill: worker-1 killed, ImportCsv#1 still in :reserved due at t+90s, expires in 30s', async () => {
    const app = await open('timeout-max-attempts');
    await app.press('n', ' ', KEYS.right);
    expect(app.see('header')).toContain('step #3 · t+60s');
    expect(app.see('trace')).toContain(
      '#3 t+60s worker-1 SIGALRM after 60s (--timeout): worker-1 is killed while running ImportCsv#1',
    );
    const state = app.see('state');
    expect(state).toContain('worker-1 killed while running ImportCsv#1');
    expect(state).toContain(':reserved 1 ImportCsv#1 attempts 1 t+90s · expires in 30s');
    expect(state).toMatch(/tries 1 .*timeout 60 .*sleep 10 .*retry_after 90/);
    expect(state).not.toContain('failed jobs');
    expect(app.see('narration')).toContain('Worker::registerTimeoutHandler → Worker::kill → posix_kill(SIGKILL)');
    expect(app.see('narration')).toContain('note: --timeout=60 fires SIGALRM while handle() is still running');
    app.unmount();
  });

  it('← goes back to the stored snapshot: worker-1 running ImportCsv#1 since t+0s', async () => {
    const app = await open('timeout-max-attempts');
    await app.press('n', 'n', 'n', KEYS.left);
    expect(app.see('header')).toContain('step #2 · t+0s');
    expect(app.see('state')).toContain('worker-1 running ImportCsv#1 since t+0s (attempt 1)');
    expect(app.see('state')).toContain('expires in 90s');
    expect(app.see('trace')).not.toContain('SIGALRM');
    await app.press('p');
    expect(app.see('header')).toContain('step #1 · t+0s');
    app.unmount();
  });

  it('at the second pop: migrate moves it back, the new reserved copy says attempts 1→2, process 2', async () => {
    const app = await open('timeout-max-attempts');
    await app.press(...Array<string>(8).fill('n'));
    expect(app.see('header')).toContain('step #8 · t+90s');
    const trace = app.see('trace');
    expect(trace).toContain('[lua] rpush queues:default ‹ImportCsv#1 attempts:1›');
    expect(trace).toContain('[lua] zadd queues:default:reserved t+180s ‹ImportCsv#1 attempts:1→2›');
    const state = app.see('state');
    expect(state).toContain('ImportCsv#1 attempts 2 t+180s · expires in 90s');
    // Popped, not yet processed: the worker holds the job it reserved (not "polling").
    expect(state).toContain('worker-1 holds ↻ process 2 ImportCsv#1 (attempt 2): handle() next');
    expect(app.see('narration')).toContain('retry_after has passed, so migrating :reserved finds the job');
    app.unmount();
  });

  it('G jumps to the end: the failed job with MaxAttemptsExceededException; g back to the start', async () => {
    const app = await open('timeout-max-attempts');
    await app.press('G');
    expect(app.see('header')).toContain('step #9 · t+90s');
    expect(app.see('header')).toContain('finished · 10 steps');
    expect(app.see('state')).toContain('failed jobs: 1 ImportCsv#1 at t+90s');
    expect(app.see('state')).toContain(
      'MaxAttemptsExceededException: App\\Jobs\\ImportCsv has been attempted too many times',
    );
    expect(app.see('narration')).toContain('end: the run is over: 1 job (1 failed).');
    expect(app.see('trace')).toContain('ZREM queues:default:reserved ‹ImportCsv#1 attempts:2›');
    await app.press('g');
    expect(app.see('header')).toContain('step #0 · t+0s');
    app.unmount();
  });

  it('enter shows the selected line in full: the payload pretty-printed, attempts marked; s the Lua source', async () => {
    const app = await open('timeout-max-attempts');
    await app.press(...Array<string>(8).fill('n'));
    await app.press(KEYS.enter); // the newest line: [lua] zadd of the reserved copy
    let screen = flat(app.frame());
    expect(screen).toContain('Step #8, line 9 of 9');
    expect(screen).toContain('arg 2 1700000180 = t+180s');
    expect(screen).toContain('arg 3 job payload of ImportCsv#1');
    expect(screen).toContain('attempts 1→2');
    await app.press(KEYS.escape);
    await app.press(KEYS.up, KEYS.up, KEYS.enter); // the EVAL of the pop script
    screen = flat(app.frame());
    expect(screen).toContain('script ‹pop› LuaScripts::pop');
    expect(screen).toContain('KEYS[1] queues:default');
    expect(screen).toContain('ARGV[1] 1700000180 = t+180s');
    expect(screen).not.toContain("redis.call('lpop', KEYS[1])");
    await app.press('s');
    expect(flat(app.frame())).toContain("local job = redis.call('lpop', KEYS[1])");
    await app.press('q'); // closes the details, does not quit
    expect(app.see('header')).toContain('step #8');
    const [, line, of] = /line (\d+)\/(\d+)/.exec(app.see('trace')) ?? [];
    expect(Number(of) - Number(line)).toBe(2); // the EVAL, two lines above the newest, stays selected
    app.unmount();
  });

  it('s on a [lua] line shows the script of the EVAL it runs in; i opens the step and i closes it', async () => {
    const app = await open('timeout-max-attempts');
    await app.press(...Array<string>(8).fill('n'));
    await app.press(KEYS.enter); // the newest line: [lua] zadd, run by the pop script
    await app.press(' ', ' '); // page down, past the payload
    expect(flat(app.frame())).toContain('s shows the Lua source of ‹pop›, the EVAL this runs in');
    await app.press('s', ' ');
    expect(flat(app.frame())).toContain("local job = redis.call('lpop', KEYS[1])");
    await app.press(KEYS.escape, 'i');
    expect(flat(app.frame())).toContain('Step #8 · t+90s · worker-1');
    await app.press('i');
    expect(app.see('trace')).toContain('EVAL ‹pop›');
    expect(app.see('header')).toContain('step #8');
    app.unmount();
  });

  it('Esc and a key in one read (what Ink calls Alt+key) count as both: Esc closes the details, then n steps on', async () => {
    const app = await open('timeout-max-attempts');
    await app.press('n', 'n');
    await app.press(KEYS.enter); // step #2 (handle() starts) sends nothing: its details
    expect(flat(app.frame())).toContain('Step #2 · t+0s · worker-1 · process');
    await app.press('\u001bn'); // Esc then n, arriving together
    expect(flat(app.frame())).not.toContain('Step #2 · t+0s · worker-1 · process');
    expect(app.see('header')).toContain('step #3');
    app.unmount();
  });

  it('r toggles the raw view: unix times and payloads verbatim', async () => {
    const app = await open('timeout-max-attempts');
    await app.press('n', 'r');
    expect(app.see('trace')).toContain('raw');
    expect(app.see('trace')).toContain('1700000090');
    expect(app.see('trace')).not.toContain('‹pop›');
    await app.press('r');
    expect(app.see('trace')).toContain('‹pop›');
    app.unmount();
  });

  it('? shows the keys; esc closes the help', async () => {
    const app = await open('timeout-max-attempts');
    await app.press('?');
    expect(flat(app.frame())).toContain('previous step (from the stored snapshot, no re-run)');
    await app.press(KEYS.escape);
    expect(app.see('trace')).toContain('RPUSH');
    app.unmount();
  });
});

describe('80×24: a busy step still says what it is in the narration', () => {
  // The narration is cut to fit; the trace pane has scrolled past the step's header on these
  // steps, so the title must survive the cut (one line, clipped), with the note.
  const cases: [string, number][] = [
    ['timeout-max-attempts', 1],
    ['timeout-max-attempts', 8],
    ['migrate-chunking', 2],
  ];
  for (const [name, index] of cases) {
    it(`${name} #${index}`, async () => {
      const t = timeline(name);
      const step = t.steps[index]!;
      const term = renderInTerminal(<App session={recordedSession(t)} scenario={name} colour={false} />, 80, 24);
      await settle();
      await term.press(...Array<string>(index).fill('n'));
      const narration = flat(region(term.lastFrame(), 'narration', 80, 24));
      expect(narration).toContain(`${step.actor} ${step.title.slice(0, 40)}`);
      if (step.note !== undefined) expect(narration).toContain('note: ');
      term.unmount();
    });
  }
});

describe('80×24: a failed job whose message does not fit', () => {
  it('is cut with an ellipsis, never mid-word without one', async () => {
    const t = timeline('timeout-max-attempts');
    const term = renderInTerminal(
      <App session={recordedSession(t)} scenario="x" colour={false} initial={{ target: 9 }} />,
      80,
      24,
    );
    await settle();
    const state = region(term.lastFrame(), 'state', 80, 24);
    expect(state).toMatch(/MaxAttemptsExceededException|MaxAttemptsExceeded\S*…/);
    expect(state).not.toMatch(/MaxAttemptsExceededExcep?t?\s/);
    term.unmount();
  });
});

describe('retry-after-vs-timeout in a larger terminal (120×40)', () => {
  const see = (frame: string, which: Region) => flat(region(frame, which, 120, 40));
  const openLarge = () =>
    renderInTerminal(
      <App session={recordedSession(timeline('retry-after-vs-timeout'))} scenario="x" colour={false} />,
      120,
      40,
    );

  it('at t+30s worker-2 reserves the job again while worker-1 still runs it', async () => {
    const term = openLarge();
    await settle();
    await term.press(...Array<string>(6).fill('n'));
    const frame = term.lastFrame();
    expect(see(frame, 'trace')).toContain(
      '#6 t+30s worker-2 pop: reserved GenerateReport#1 (attempts 2) until t+60s (retry_after 30s)',
    );
    expect(see(frame, 'trace')).toContain('[lua] zremrangebyrank queues:default:reserved 0 0');
    expect(see(frame, 'state')).toContain('GenerateReport#1 attempts 2 t+60s · expires in 30s');
    expect(see(frame, 'state')).toContain('worker-1 running GenerateReport#1 since t+0s (attempt 1)');
    expect(see(frame, 'narration')).toContain(
      'The reservation made at t+0s expired at t+30s while worker-1 is still running the job',
    );
    term.unmount();
  });

  it('at #7 both workers run GenerateReport#1 at once; at #8 worker-1 ZREMs a copy that is gone', async () => {
    const term = openLarge();
    await settle();
    await term.press(...Array<string>(7).fill('n'));
    let state = see(term.lastFrame(), 'state');
    expect(state).toContain('worker-1 running GenerateReport#1 since t+0s (attempt 1)');
    expect(state).toContain('worker-2 running GenerateReport#1 since t+30s (attempt 2)');
    expect(state).toContain('handle() ran: GenerateReport#1 ×2');
    expect(state).toMatch(/worker-1 running .* retry_after 30/);

    await term.press('n');
    const frame = term.lastFrame();
    expect(see(frame, 'trace')).toContain(
      '#8 t+45s worker-1 GenerateReport#1 succeeded: delete from :reserved (ZREM removed 0)',
    );
    // The attempts-1 copy worker-1 holds; the trace last showed this job with attempts 2.
    expect(see(frame, 'trace')).toContain(
      'ZREM queues:default:reserved ‹GenerateReport#1 attempts:1 stale copy (now 2)›',
    );
    expect(see(frame, 'narration')).toContain('ZREM removes 0');
    state = see(frame, 'state');
    expect(state).toContain('GenerateReport#1 attempts 2 t+60s · expires in 15s');
    term.unmount();
  });

  it('at the end of part 2: the long retry_after ran the job once; every worker is listed', async () => {
    const term = openLarge();
    await settle();
    await term.press('G');
    const frame = term.lastFrame();
    expect(see(frame, 'header')).toContain('step #22 · t+145s');
    const state = see(frame, 'state');
    expect(state).toContain('queues:default empty');
    expect(state).toContain('queues:long empty');
    for (const w of [
      'worker-1 stopped (--once)',
      'worker-2 stopped (SIGTERM)',
      'worker-3 done with GenerateReport#2: polls next',
      'worker-4 idle',
    ])
      expect(state).toContain(w);
    expect(state).toContain('GenerateReport#2 ×1');
    expect(see(frame, 'narration')).toContain('end: the run is over: 2 jobs (2 succeeded).');
    term.unmount();
  });

  it('q quits the app', async () => {
    const term = openLarge();
    await settle();
    await term.press('q');
    await waitForFrame(
      () => (term.exited() ? 'exited' : ''),
      (f) => f === 'exited',
    );
  });
});

describe('migrate-chunking (120×40)', () => {
  const chunking = recordScenarios('migrate-chunking');

  it('shows the three rpush chunks of the migrate script as 100, 100 and 50 jobs', async () => {
    const term = renderInTerminal(
      <App session={recordedSession(chunking('migrate-chunking'))} scenario="migrate-chunking" colour={false} />,
      120,
      40,
    );
    await settle();
    await term.press('n', 'n');
    const trace = flat(region(term.lastFrame(), 'trace', 120, 40));
    const chunks = [
      ...trace.matchAll(/\[lua\] rpush queues:default ‹(\d+) jobs: SendInvoice#\d+ … SendInvoice#\d+›/g),
    ].map((m) => m[1]);
    expect(chunks).toEqual(['100', '100', '50']);
    term.unmount();
  });
});
