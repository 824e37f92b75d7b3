// Starts a throwaway redis-server binary on a free loopback port, with no persistence and its
// own temp dir, and makes sure it dies with us (see cleanup.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerCleanup } from '../cleanup.ts';
import { LocalRedisError } from './errors.ts';

export interface LocalRedisServer {
  host: '127.0.0.1';
  port: number;
  pid: number;
  /** The binary that was run (REDIS_SERVER_BIN or "redis-server"). */
  binary: string;
  /** Temp dir passed as --dir; removed by stop(). */
  dir: string;
  /**
   * The version its first lines give ("Redis version=7.0.15, ...": Redis 4 and later), which is
   * INFO's redis_version; undefined where they give none (older, or a fork that says its own name).
   */
  version?: string;
  /** SIGKILL (nothing to save), waits for the exit, then removes `dir`. Safe to call twice. */
  stop(): Promise<void>;
}

export interface LocalRedisOptions {
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  /**
   * More server arguments, for the port and temp dir this attempt uses (a cluster node's
   * `--cluster-config-file <dir>/nodes.conf`, its bus port): asked again on each port attempt.
   */
  extraArgs?: (server: { port: number; dir: string }) => readonly string[] | Promise<readonly string[]>;
  /** Called once the server's process is spawned (on each port attempt), before it is ready. */
  onSpawn?: () => void;
  /** The port each attempt tries (pickPort); its tests give their own. */
  port?: () => number;
}

const HOST = '127.0.0.1';
const READY = 'Ready to accept connections';
const VERSION_LINE = /\bRedis version=(\d+\.\d+\.\d+)\b/;
const PORT_ATTEMPTS = 8;
const TAIL_LINES = 12;

export function redisServerBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.REDIS_SERVER_BIN || 'redis-server';
}

export async function startLocalRedisServer(opts: LocalRedisOptions = {}): Promise<LocalRedisServer> {
  const env = opts.env ?? process.env;
  const binary = redisServerBinary(env);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, (opts.port ?? pickPort)(), env, opts.readyTimeoutMs ?? 5000, opts);
    } catch (err) {
      // A port in use: the server said so as it failed to bind it.
      if (err instanceof LocalRedisError && err.reason === 'port-in-use' && attempt < PORT_ATTEMPTS) continue;
      throw err;
    }
  }
}

/**
 * A port for a server to try (`--port 0` would disable TCP in Redis), where Linux picks one for a
 * listen on port 0 (freePort): an odd port in the lower half of its ephemeral range, which services
 * with a port of their own stay out of, and whose upper half and even ports it keeps for outgoing
 * connections (it also keeps a cluster node's bus port, 10000 higher, under 65536). At random, not
 * looked up first: a listen and a close cost ~3 ms of a one-job run (docs/performance.md), and the
 * port could be taken between the look and the server's bind anyway. The server's bind is what
 * says: one in use fails with "Address already in use", and the next attempt tries another
 * (PORT_ATTEMPTS).
 */
export function pickPort(): number {
  const [low, high] = ephemeralRange();
  const first = low | 1;
  const odd = Math.floor((low + Math.floor((high - low) / 2) - first) / 2) + 1;
  return first + 2 * Math.floor(Math.random() * odd);
}

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low! >= 1024 && high! >= low! && high! <= 65535)
      return [low!, high!];
  } catch {
    // not Linux: the range IANA suggests, which BSDs and macOS use
    return [49152, 65535];
  }
  return [32768, 60999]; // Linux's default
}

/** Asks the kernel for a free port (a cluster node's bus port, tests). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, HOST);
  await once(srv, 'listening');
  const addr = srv.address();
  srv.close();
  await once(srv, 'close');
  if (addr === null || typeof addr === 'string') throw new Error('could not determine a free port');
  return addr.port;
}

/**
 * SIGKILL cannot be caught, so no handler of ours runs when the CLI is killed that way. A detached
 * shell waits on a pipe only we hold: when this process ends, however it ends, the kernel closes
 * the pipe, `read` returns, and the shell kills the server and removes its dir. It is started
 * before anything it guards exists, and told the dir and port first: a kill between creating the
 * dir and spawning the server, or between spawning it and telling the shell its pid, leaves
 * nothing either (the server is found by its port, under its original command line or the title
 * redis-server gives itself, "redis-server 127.0.0.1:<port>"). After a normal stop we write
 * "done", so it only removes the (already removed) dir.
 */
const WATCHDOG = `read -r dir port || exit 0
[ -n "$dir" ] || exit 0
pid=
while read -r line; do
  case "$line" in
    'pid '*) pid=\${line#pid } ;;
    done) rm -rf -- "$dir"; exit 0 ;;
  esac
done
[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
pkill -9 -f "redis-server.*[ :]$port( |$)" 2>/dev/null
rm -rf -- "$dir"`;

/** Exported for its test (test/fixtures/die-during-startup.ts). */
export function startWatchdog(dir: string, port: number): { tell(pid: number): void; dismiss(): void } {
  const shell = spawn('/bin/sh', ['-c', WATCHDOG, 'lqsim-watchdog'], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true, // its own process group: a Ctrl-C to ours must not end it before us
  });
  shell.on('error', () => undefined); // no /bin/sh: the signal and exit handlers still clean up
  shell.stdin?.on('error', () => undefined);
  shell.stdin?.write(`${dir} ${port}\n`);
  shell.unref();
  let dismissed = false;
  return {
    tell: (pid) => {
      if (!dismissed) shell.stdin?.write(`pid ${pid}\n`);
    },
    dismiss: () => {
      if (dismissed) return;
      dismissed = true;
      shell.stdin?.end('done\n');
    },
  };
}

/** A child whose spawn failed (e.g. ENOENT) has no pid and never runs. */
function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

async function startOnce(
  binary: string,
  port: number,
  env: NodeJS.ProcessEnv,
  readyTimeoutMs: number,
  opts: Pick<LocalRedisOptions, 'extraArgs' | 'onSpawn'>,
): Promise<LocalRedisServer> {
  const dir = join(tmpdir(), `lqsim-redis-${randomBytes(6).toString('hex')}`);
  // Asked before anything exists: a throw here leaves nothing to clean up.
  const extra = (await opts.extraArgs?.({ port, dir })) ?? [];
  // The watchdog first, then what it guards (see startWatchdog).
  const watchdog = startWatchdog(dir, port);
  mkdirSync(dir, { mode: 0o700 });
  const args = [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    ...extra,
  ];
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const removeDir = (): void => {
    try {
      rmdirSync(dir); // usually empty (nothing is saved): without the recursive removal's module (~1 ms)
    } catch {
      rmSync(dir, { recursive: true, force: true }); // a cluster node's nodes.conf, or gone already
    }
  };
  if (child.pid !== undefined) watchdog.tell(child.pid);
  opts.onSpawn?.();

  // Keep reading both pipes for the server's whole life (a full pipe would block it) and keep
  // the last lines for error messages.
  const tail: string[] = [];
  let partial = '';
  let ready = false;
  let version: string | undefined;
  let onReady: (() => void) | undefined;
  const collect = (chunk: Buffer): void => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = (lines.pop() ?? '').slice(-4096); // a line without end must not grow for ever
    for (const l of lines) {
      if (!ready && version === undefined) version = VERSION_LINE.exec(l)?.[1];
      if (!ready && l.includes(READY)) {
        ready = true;
        onReady?.();
      }
      tail.push(l.trimEnd());
      if (tail.length > TAIL_LINES) tail.shift();
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const lastOutput = (): string[] => (partial ? [...tail, partial] : [...tail]).filter((l) => l.length > 0);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (isRunning(child)) {
        const exited = once(child, 'exit').catch(() => undefined);
        // SIGKILL at once: the server is ours alone, started with nothing to save (--save '', no
        // AOF), and its dir goes next. SIGTERM made Redis wait for its next serverCron tick to shut
        // down: ~50 ms of every command's wall time, a tenth of a one-job run.
        child.kill('SIGKILL');
        await exited;
      }
      removeDir();
      watchdog.dismiss();
      unregister();
    })());
  const unregister = registerCleanup(stop, () => {
    if (isRunning(child)) child.kill('SIGKILL');
    removeDir();
  });

  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          settle(
            new LocalRedisError(
              'timeout',
              `${binary} did not print "${READY}" within ${readyTimeoutMs} ms`,
              lastOutput(),
            ),
          ),
        readyTimeoutMs,
      );
      const settle = (err?: LocalRedisError): void => {
        clearTimeout(timer);
        child.off('close', onClose);
        onReady = undefined;
        if (err) reject(err);
        else resolve();
      };
      onReady = () => settle();
      // 'error' stays attached for good: an unhandled 'error' event would crash the process.
      child.on('error', (e: NodeJS.ErrnoException) => {
        if (ready) return;
        settle(
          e.code === 'ENOENT'
            ? new LocalRedisError(
                'not-found',
                `redis-server binary not found: ${binary} (set REDIS_SERVER_BIN or put redis-server on PATH)`,
              )
            : new LocalRedisError('spawn-failed', `could not run ${binary}: ${e.message}`),
        );
      });
      // 'close' rather than 'exit': it comes after the pipes are drained, so the output is complete.
      const onClose = (code: number | null, signal: NodeJS.Signals | null): void => {
        const out = lastOutput();
        const inUse = out.some((l) => l.includes('Address already in use'));
        settle(
          new LocalRedisError(
            inUse ? 'port-in-use' : 'exited',
            `${binary} exited before it was ready (${signal ?? `code ${code}`}) on port ${port}`,
            out,
          ),
        );
      };
      child.on('close', onClose);
      if (ready) settle();
    });
  } catch (err) {
    await stop();
    throw err;
  }

  if (child.pid === undefined) throw new LocalRedisError('spawn-failed', `${binary} has no pid`);
  return { host: HOST, port, pid: child.pid, binary, dir, ...(version === undefined ? {} : { version }), stop };
}
