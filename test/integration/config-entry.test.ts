// A `config` timeline entry (config/queue.php changes mid-run) in the Laravel 8 profile against a
// real redis-server, and against real Laravel 8.83 (test/fixtures/conformance/config-change.yaml).
// The commands are derived by hand from Laravel 8.83's source:
// - a process reads config when it boots; QueueManager::connection resolves a queue connection
//   once per process and caches it in $this->connections, and RedisConnector::connect builds the
//   RedisQueue with `$config['retry_after'] ?? 60` and `$config['block_for'] ?? null`;
// - RedisQueue::pop → retrieveNextJob evaluates LuaScripts::pop with ARGV[1] =
//   `$this->availableAt($this->retryAfter)`, now + the retry_after *of that process's RedisQueue*;
// - when the pop finds nothing and blockFor is set, `$this->getConnection()->blpop([$queue.':notify'],
//   $this->blockFor)`; with blockFor null it returns [null, null] and the worker sleeps --sleep.
// So worker-1's first process reserves with now + 90 after retry_after became 30; the process
// supervisord starts after the kill at t+40 reserves with now + 30, and so does worker-2, started
// at t+20; block_for 5 (t+60) reaches only the process started after the kill at t+65.
import { describe, expect, it } from 'vitest';
import { conformScenario } from '../../src/conformance/compare.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { c, expectSteps, payload } from '../helpers/trace.ts';
import { wire } from '../helpers/wire-8.ts';
import { useRedis } from '../helpers/run.ts';

const file = new URL('../fixtures/conformance/config-change.yaml', import.meta.url).pathname;
const SELECT = c('SELECT', '0');

describe('config entry: running processes keep the config they booted with', () => {
  const redis = useRedis();

  it('worker-1 pops with retry_after 90 until its restart, later processes with 30; block_for only after the next restart', async () => {
    const { spec } = await loadScenarioFile(file);
    const t = await runScenario(spec, { redis: redis(), file });
    const old = wire('8', { retryAfter: 90 });
    const now = wire('8', { retryAfter: 30 });
    const blpop = c('BLPOP', now.Q.notify, '5');
    expectSteps(
      t,
      [
        { actor: 'worker-1', t: 0, kind: 'pop', commands: [SELECT, ...old.poll(0)] },
        // The change itself sends nothing.
        { actor: 'config', t: 10, kind: 'config', commands: [] },
        { actor: 'dispatcher', t: 10, kind: 'dispatch', commands: [SELECT, ...old.push('p1')] },
        // worker-1's process booted with 90: the pop's ARGV is t+10 + 90.
        {
          actor: 'worker-1',
          t: 10,
          kind: 'pop',
          commands: old.poll(10, { reserved: payload({ attempts: 1 }, 'r1') }),
        },
        { actor: 'worker-1', t: 10, kind: 'process', commands: [] },
        { actor: 'worker-1', t: 15, kind: 'delete', commands: old.zrem('r1') },
        { actor: 'worker-1', t: 15, kind: 'pop', commands: old.poll(15) },
        // worker-2 starts after the change: t+20 + 30.
        { actor: 'worker-2', t: 20, kind: 'pop', commands: [SELECT, ...now.poll(20)] },
        { actor: 'worker-2', t: 21, kind: 'stop', commands: [] },
        { actor: 'worker-1', t: 25, kind: 'pop', commands: old.poll(25) },
        { actor: 'worker-1', t: 35, kind: 'pop', commands: old.poll(35) },
        { actor: 'worker-1', t: 40, kind: 'kill', commands: [] },
        { actor: 'worker-1', t: 40, kind: 'restart', commands: [] },
        // The new process reads 30: its first (empty) pop already says t+40 + 30.
        { actor: 'worker-1', t: 40, kind: 'pop', commands: [SELECT, ...now.poll(40)] },
        { actor: 'dispatcher', t: 45, kind: 'dispatch', commands: [SELECT, ...now.push('p2')] },
        {
          actor: 'worker-1',
          t: 50,
          kind: 'pop',
          commands: now.poll(50, { reserved: payload({ attempts: 1 }, 'r2') }),
        },
        { actor: 'worker-1', t: 50, kind: 'process', commands: [] },
        { actor: 'worker-1', t: 55, kind: 'delete', commands: now.zrem('r2') },
        // block_for changed at t+60 does not reach the running process: no BLPOP.
        { actor: 'worker-1', t: 55, kind: 'pop', commands: now.poll(55) },
        { actor: 'config', t: 60, kind: 'config', commands: [] },
        { actor: 'worker-1', t: 65, kind: 'kill', commands: [] },
        { actor: 'worker-1', t: 65, kind: 'restart', commands: [] },
        // The process started at t+65 reads block_for 5: the pop found nothing, so BLPOP :notify 5.
        { actor: 'worker-1', t: 65, kind: 'block', commands: [SELECT, ...now.poll(65), blpop] },
        { actor: 'worker-1', t: 70, kind: 'pop', commands: [] },
        { actor: 'worker-1', t: 80, kind: 'block', commands: [...now.poll(80), blpop] },
      ],
      now.profile,
    );
    expect(t.steps[1]!.title).toBe(
      'config/queue.php changes: redis retry_after 90 → 30; worker-1 keeps 90 until it restarts',
    );
    expect(t.steps[1]!.explain).toMatch(/worker-2 \(starts at t\+20s\) will read the new values/);
    expect(t.steps[19]!.title).toBe(
      'config/queue.php changes: redis block_for null → 5; worker-1 keeps null until it restarts',
    );
    // The state pane: each process shows the retry_after it booted with.
    expect(t.steps[10]!.state.workers.find((w) => w.name === 'worker-1')!.retryAfter).toBe(90);
    expect(t.steps[13]!.state.workers.find((w) => w.name === 'worker-1')!.retryAfter).toBe(30);
    expect(t.steps[22]!.state.workers.find((w) => w.name === 'worker-1')!.blockFor).toBe(5);
  });

  it('real Laravel 8.83 sends the same commands (each PHP process is given the config current at its start)', async () => {
    const { spec } = await loadScenarioFile(file);
    const r = await conformScenario(spec, redis(), { file });
    expect(r.status, JSON.stringify(r).slice(0, 2000)).toBe('identical');
  });
});
