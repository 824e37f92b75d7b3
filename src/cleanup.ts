// Process-exit cleanup registry: whatever we spawn (redis-server, containers) must not outlive
// us when the user presses Ctrl-C or the process is told to stop.
//
// Signals run the async cleanups (bounded, so a stuck one cannot keep us alive), then exit with
// the shell's 128+signo convention. 'exit' cannot await, so each entry may add a sync fallback
// (e.g. SIGKILL a child) that runs for whatever is still registered then, including after an
// uncaught exception, which we deliberately do not catch: the CLI owns error reporting.
import { constants } from 'node:os';

type AsyncCleanup = () => Promise<void> | void;
interface Entry {
  run: AsyncCleanup;
  sync: (() => void) | undefined;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const DEFAULT_BUDGET_MS = 3000;

const entries = new Set<Entry>();
let installed = false;
let exiting = false;

/** Registers a cleanup; returns a function that unregisters it (call it after a normal stop). */
export function registerCleanup(fn: AsyncCleanup, syncFn?: () => void): () => void {
  const entry: Entry = { run: fn, sync: syncFn };
  entries.add(entry);
  install();
  return () => {
    entries.delete(entry);
  };
}

/**
 * Runs every registered cleanup concurrently, waiting at most `budgetMs` in total. An entry is
 * dropped once its cleanup settles; one still running at the deadline stays registered, so its
 * sync fallback still fires on 'exit'. Errors are swallowed: cleanup is best effort.
 */
export async function runCleanups(budgetMs = DEFAULT_BUDGET_MS): Promise<void> {
  const runs = [...entries].map(async (entry) => {
    try {
      await entry.run();
    } catch {
      // best effort: a failed cleanup must not stop the others
    }
    entries.delete(entry);
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budgetMs);
    timer.unref();
  });
  await Promise.race([Promise.all(runs), deadline]);
  clearTimeout(timer);
}

function runSyncFallbacks(): void {
  for (const entry of entries) {
    try {
      entry.sync?.();
    } catch {
      // best effort, and we are exiting anyway
    }
  }
  entries.clear();
}

function onSignal(signal: (typeof SIGNALS)[number] | 'SIGPIPE'): void {
  const code = 128 + constants.signals[signal];
  // A second signal while cleaning up means "now": the 'exit' handler still runs the fallbacks.
  if (exiting) process.exit(code);
  exiting = true;
  void runCleanups().finally(() => process.exit(code));
}

/**
 * The reader of our stdout has gone (`lqsim run x | head -1`). Node ignores SIGPIPE, so the write
 * fails with EPIPE instead; do what the signal would: stop, clean up, exit 141, without a word
 * (there is no one left to read it, and the reader chose to stop).
 */
function onStdoutError(e: NodeJS.ErrnoException): void {
  if (e.code === 'EPIPE') {
    onSignal('SIGPIPE');
    return;
  }
  throw e;
}

/** True once a signal has started the shutdown: errors from connections it closes are expected. */
export function isShuttingDown(): boolean {
  return exiting;
}

/**
 * Installs the signal and exit handlers now (the CLI calls this first, before anything starts),
 * and treats a closed stdout as SIGPIPE.
 */
export function installCleanupHandlers(): void {
  install();
  process.stdout.on('error', onStdoutError);
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on('exit', runSyncFallbacks);
}
