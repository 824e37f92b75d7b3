// The twin of explain-captures.sh on the conformance harness's virtual clock: each scenario of
// explain-scenarios/ is played by real Laravel 8.83 (src/conformance/real-laravel.ts, as
// `lqsim conformance` plays it) while `redis-cli monitor` records the server. Laravel's times
// (Carbon, the scores and the scripts' ARGV) are virtual, from the scenario's start; MONITOR's are
// the real instants, seconds of work passing in milliseconds: a skewed clock, as a capture taken
// on a server whose clock is not the app's. Writes OUTDIR/laravel8-harness-NAME.txt and
// .events.jsonl (Laravel's events, with virtual `now`).
//
//   node_modules/.bin/tsx conformance/laravel/explain-harness-captures.ts [OUTDIR [NAME...]]
//
// Only Laravel's own connections are kept (those that name themselves with CLIENT SETNAME, the
// harness's `database.redis.default.name`), with the lines their scripts ran; the coordinator's
// observer (FLUSHALL, CLIENT LIST, LLEN/ZCARD, CLIENT UNBLOCK) is not the app's traffic.
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWithRealLaravel } from '../../src/conformance/real-laravel.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';

const here = dirname(fileURLToPath(import.meta.url));
const scenarios = join(here, 'explain-scenarios');
const [outArg, ...names] = process.argv.slice(2);
const out = outArg ?? join(here, '../../test/fixtures/explain');
const all = readdirSync(scenarios)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => basename(f, '.yaml'));
for (const n of names) {
  if (!all.includes(n)) {
    process.stderr.write(`explain-harness-captures: no scenario '${n}' (${all.join(', ')})\n`);
    process.exit(2);
  }
}

/** Laravel's lines only: a connection that sent CLIENT SETNAME, and the lua lines after its EVALs. */
export function laravelLines(monitor: string): string[] {
  const lines = monitor.split('\n').filter((l) => /^\d+\.\d+ \[/.test(l));
  const client = (l: string) => /^\S+ \[\d+ ([^\]]+)\]/.exec(l)?.[1] ?? '';
  const named = new Set(lines.filter((l) => / "CLIENT" "SETNAME" /i.test(l)).map(client));
  let keep = false;
  return lines.filter((l) => {
    const c = client(l);
    if (c !== 'lua') keep = named.has(c);
    return keep;
  });
}

const started = Date.now();
const server = await acquireRedis();
try {
  for (const name of names.length > 0 ? names : all) {
    const { spec } = await loadScenarioFile(join(scenarios, `${name}.yaml`));
    const file = join(out, `laravel8-${name}.txt`);
    const events = join(out, `laravel8-${name}.events.jsonl`);
    rmSync(events, { force: true });
    process.env.PROBE_LOG_COPY = events;
    const monitor = spawn('redis-cli', ['-p', String(server.port), 'monitor'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    monitor.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    while (!text.startsWith('OK')) await new Promise((r) => setTimeout(r, 50));
    const run = await runWithRealLaravel(spec, { redis: server });
    await new Promise((r) => setTimeout(r, 300));
    monitor.kill();
    await new Promise((r) => monitor.once('close', r));
    if (run.error !== undefined) {
      rmSync(events, { force: true }); // no half a pair: the capture is not written either
      throw new Error(`${name}: ${run.error}`);
    }
    const kept = laravelLines(text);
    writeFileSync(file, ['OK', ...kept, ''].join('\n'));
    process.stdout.write(`${name}: ${kept.length} lines, handle() ${JSON.stringify(run.executions)}\n`);
  }
} finally {
  delete process.env.PROBE_LOG_COPY;
  await server.stop();
}
process.stdout.write(`recorded in ${Math.round((Date.now() - started) / 1000)} s\n`);
