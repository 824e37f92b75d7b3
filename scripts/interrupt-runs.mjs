#!/usr/bin/env node
// Interrupts a command N times at random instants and counts what the runs left behind: the
// "no node left running after 50 interrupted runs" check of issue 28.
//
//   node scripts/interrupt-runs.mjs [--runs 50] [--max-ms 4000] [--verbose] [-- command args...]
//
// The command defaults to test/helpers/cluster-child.ts (starts a local Redis Cluster and waits).
// Each run gets its own TMPDIR and a marker in its environment, which every process it starts
// inherits (the watchdog shells, the redis-server nodes), so what is left is told from the other
// redis-servers and temp dirs of this machine (other suites run beside it) by that alone: a process
// whose environment has the marker or whose working directory is in a run's TMPDIR (redis-server
// changes into its --dir), an lqsim-* entry in a run's TMPDIR. Signals are INT, TERM and KILL in equal shares,
// shuffled, each sent to the command's process alone at a random instant from 0 to --max-ms after
// it started (4 s by default: the child's tsx start and the cluster's own 2 s take ~3 s, so about a
// quarter of the signals come after it is ready). Prints e.g. `50 runs (17 INT, 16 TERM, 17 KILL): 0 nodes left, 0 dirs left` and exits
// 1 when anything was left (it is then removed), a run hung after its signal, or a run failed by
// itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGKILL'];
/** A run that has not exited this long after its signal is hung (the cleanup budget is 3 s). */
const EXIT_WAIT_MS = 10_000;
/** How long the watchdogs of SIGKILLed runs get to finish before the count. */
const SETTLE_MS = 5_000;

function parseArgs(argv) {
  const o = { runs: 50, maxMs: 4000, verbose: false, command: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      o.command = argv.slice(i + 1);
      break;
    }
    if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--max-ms') o.maxMs = Number(argv[++i]);
    else if (a === '--verbose') o.verbose = true;
    else usage(`unknown argument ${a}`);
  }
  if (!Number.isInteger(o.runs) || o.runs < 1) usage('--runs: expected a whole number of runs, 1 or more');
  if (!Number.isFinite(o.maxMs) || o.maxMs < 0) usage('--max-ms: expected a number of milliseconds, 0 or more');
  if (o.command !== null && o.command.length === 0) usage('nothing after --');
  o.command ??= [process.execPath, '--import', 'tsx', join(root, 'test/helpers/cluster-child.ts')];
  return o;
}

function usage(why) {
  process.stderr.write(
    `interrupt-runs: ${why}\nusage: node scripts/interrupt-runs.mjs [--runs N] [--max-ms MS] [--verbose] [-- command args...]\n`,
  );
  process.exit(2);
}

/** INT, TERM and KILL in equal shares (the first ones of the list take the remainder), shuffled. */
function signalsFor(runs) {
  const list = Array.from({ length: runs }, (_, i) => SIGNALS[i % SIGNALS.length]);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/** Runs the command once, sends `signal` after `delayMs`, and resolves with what happened. */
function interruptOnce(command, env, signal, delayMs) {
  return new Promise((resolve) => {
    const started = Date.now();
    // Its own process group: the signal reaches the command alone, as `kill <pid>` would, never
    // its redis-servers directly (a Ctrl-C to this script does not reach the runs either).
    const child = spawn(command[0], command.slice(1), {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let ready = false;
    let stderr = '';
    child.stdout.on('data', (d) => {
      if (String(d).includes('ready')) ready = true;
    });
    child.stderr.on('data', (d) => {
      stderr = (stderr + String(d)).slice(-2000);
    });
    let sentAt = null;
    let readyAtSignal = false;
    let hung = false;
    const timer = setTimeout(() => {
      readyAtSignal = ready;
      sentAt = Date.now() - started;
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) {
          hung = true;
          child.kill('SIGKILL');
        }
      }, EXIT_WAIT_MS).unref();
    }, delayMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ error: e.message, sentAt, readyAtSignal, hung, code: null, by: null, stderr });
    });
    child.on('exit', (code, by) => {
      clearTimeout(timer);
      resolve({ sentAt, readyAtSignal, hung, code, by, stderr });
    });
  });
}

/**
 * Every live process of the runs: its environment carries the marker, or (redis-server rewrites
 * the memory /proc shows as its environment when it retitles itself) its working directory is
 * under `base`: redis-server changes into its --dir, in the run's TMPDIR.
 */
function runsProcesses(base, marker) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (state === 'Z') continue; // a zombie holds nothing; its parent has died or will reap it
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      const inRun = environ.some((v) => v.startsWith(`LQSIM_INTERRUPT_RUN=${marker}-`));
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (!inRun && !cwd.startsWith(`${base}/`)) continue;
      const name = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(entry), name, cmdline: `${cmdline} (in ${cwd})` });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

const o = parseArgs(process.argv.slice(2));
const base = mkdtempSync(join(tmpdir(), 'interrupt-runs-'));
const marker = base.slice(-6);
const signals = signalsFor(o.runs);
const results = [];
for (let i = 0; i < o.runs; i++) {
  const dir = join(base, `run-${i + 1}`);
  mkdirSync(dir);
  const env = { ...process.env, TMPDIR: dir, LQSIM_INTERRUPT_RUN: `${marker}-${i + 1}` };
  const delayMs = Math.round(Math.random() * o.maxMs);
  const r = await interruptOnce(o.command, env, signals[i], delayMs);
  results.push({ ...r, signal: signals[i], delayMs, dir });
  if (o.verbose) {
    const when =
      r.sentAt === null
        ? 'ended before its signal'
        : `${signals[i].slice(3)} at ${r.sentAt} ms${r.readyAtSignal ? ' (ready)' : ''}`;
    process.stdout.write(`run ${i + 1}: ${when}, exit ${r.by ?? r.code}${r.hung ? ', HUNG' : ''}\n`);
  }
}

// SIGKILLed runs are cleaned up by their watchdogs, after the run is gone: give them a moment.
const until = Date.now() + SETTLE_MS;
while (runsProcesses(base, marker).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));

const left = runsProcesses(base, marker);
const nodes = left.filter((p) => p.name.startsWith('redis-server'));
const others = left.filter((p) => !p.name.startsWith('redis-server'));
const dirs = results.flatMap((r) =>
  readdirSync(r.dir)
    .filter((e) => e.startsWith('lqsim-'))
    .map((e) => join(r.dir, e)),
);
const count = (s) => results.filter((r) => r.signal === s).length;
const hung = results.filter((r) => r.hung).length;
const early = results.filter((r) => r.sentAt === null);
const failed = early.filter((r) => r.code !== 0 || r.error !== undefined);
const afterReady = results.filter((r) => r.readyAtSignal).length;

let line = `${o.runs} runs (${count('SIGINT')} INT, ${count('SIGTERM')} TERM, ${count('SIGKILL')} KILL): ${nodes.length} nodes left, ${dirs.length} dirs left`;
if (others.length > 0) line += `, ${others.length} other processes left`;
if (hung > 0) line += `, ${hung} hung after the signal`;
process.stdout.write(`${line}\n`);
process.stdout.write(
  `  signals at 0-${o.maxMs} ms after start: ${afterReady} after the command said ready, ${o.runs - afterReady - early.length} before${early.length > 0 ? `, ${early.length} ended before the signal (${failed.length} failed)` : ''}\n`,
);
for (const p of left) process.stdout.write(`  left: pid ${p.pid} ${p.cmdline}\n`);
for (const d of dirs) process.stdout.write(`  left: ${d}\n`);
if (failed.length > 0)
  process.stdout.write(`  a run that failed by itself said:\n${failed[0].error ?? failed[0].stderr}\n`);

// What was left is counted; now it goes.
for (const p of left) {
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    // gone
  }
}
rmSync(base, { recursive: true, force: true });
process.exit(nodes.length + dirs.length + others.length + hung + failed.length > 0 ? 1 : 0);
