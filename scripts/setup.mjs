#!/usr/bin/env node
// Setup half of `npm run demo` and `npm test` (and of .ci/run): makes sure lqsim will find a Redis
// to replay against and, with --laravel (npm test), that real Laravel 8.83 is there for the
// conformance tests. Plain Node with no dependencies, so it says something useful even in a
// broken clone.
//
// - REDIS_URL set: lqsim uses that server; nothing to check. LQSIM_REDIS=docker: likewise, the
//   local binary is never used.
// - Otherwise a redis-server binary must exist (REDIS_SERVER_BIN, else on PATH), as
//   src/redis/local-server.ts runs it. When it does not, root on Debian/Ubuntu installs it with
//   apt-get; anyone else gets a one-line hint and exit code 1.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const APT_GET = '/usr/bin/apt-get';
const HINT =
  'install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), ' +
  'or run a Docker engine and set LQSIM_REDIS=docker, or set REDIS_URL=redis://host:port to use a running server';

const env = process.env;

ensureRedis();
// `npm test` also compares the model with real Laravel 8.83 (test/integration/conformance.test.ts),
// which runs from Debian's packages: install them too when asked and able.
if (process.argv.includes('--laravel')) ensureLaravel();

function ensureRedis() {
  if (env.REDIS_URL) {
    console.log('REDIS_URL is set: lqsim will use that server, no local redis-server needed');
    return;
  }
  if (env.LQSIM_REDIS === 'docker') {
    console.log('LQSIM_REDIS=docker: lqsim will start redis in Docker, no local redis-server needed');
    return;
  }

  const wanted = env.REDIS_SERVER_BIN || 'redis-server';
  let found = locate(wanted);

  if (found === undefined) {
    if (env.REDIS_SERVER_BIN) fail(`REDIS_SERVER_BIN=${wanted} is not an executable file; fix it or unset it`);
    if (!canApt()) fail(`redis-server not found on PATH: ${HINT}`);
    console.log('redis-server not found on PATH: installing it with apt-get');
    apt(['update']);
    apt(['install', '-y', 'redis-server']);
    found = locate(wanted);
    if (found === undefined) fail(`apt-get installed redis-server but it is still not on PATH (${env.PATH ?? ''})`);
  }

  const version = versionOf(found);
  console.log(`redis-server ${version} at ${found}`);
}

/**
 * PHP with phpredis, pcntl and posix, and Laravel under /usr/share/php (Debian's
 * php-laravel-framework, 8.83 on bookworm). Without root or apt, a warning: the rest of the suite
 * still runs, and the conformance tests fail saying what is missing.
 */
function ensureLaravel() {
  const PACKAGES = ['php-cli', 'php-redis', 'php-laravel-framework'];
  let version = laravelVersion();
  if (version === undefined && canApt()) {
    console.log(`real Laravel not found: installing ${PACKAGES.join(' ')} with apt-get`);
    apt(['update']);
    apt(['install', '-y', ...PACKAGES]);
    version = laravelVersion();
  }
  if (version === undefined) {
    console.warn(
      `setup: real Laravel (PHP with phpredis + Debian's php-laravel-framework) not found; the conformance tests will fail. Install: apt-get install -y ${PACKAGES.join(' ')}`,
    );
    return;
  }
  console.log(`real Laravel ${version} (php ${locate('php') ?? 'php'})`);
}

function laravelVersion() {
  const code =
    'foreach (["redis","pcntl","posix"] as $e) if (!extension_loaded($e)) exit(1); ' +
    '@include "/usr/share/php/Illuminate/autoload.php"; ' +
    'if (!class_exists("Illuminate\\Foundation\\Application")) exit(1); echo Illuminate\\Foundation\\Application::VERSION;';
  const r = spawnSync(env.LQSIM_PHP || 'php', ['-r', code], { encoding: 'utf8', timeout: 20_000 });
  return !r.error && r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined;
}

/** An absolute path to an executable file: `name` itself when it has a slash, else the first on PATH. */
function locate(name) {
  if (name.includes('/')) return isExecutable(name) ? resolve(name) : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return resolve(candidate);
  }
  return undefined;
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function canApt() {
  return existsSync(APT_GET) && typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Runs apt-get with the terminal's stdio; CI has no stdin, so nothing may prompt. */
function apt(args) {
  const r = spawnSync(APT_GET, args, { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.error) fail(`could not run ${APT_GET} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) fail(`${APT_GET} ${args.join(' ')} failed (${r.signal ?? `exit code ${r.status}`})`);
}

/** `redis-server --version` prints "Redis server v=7.0.15 sha=..."; a binary that cannot say is no use. */
function versionOf(file) {
  const r = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const match = /\bv=(\S+)/.exec(`${r.stdout ?? ''}`);
  if (r.error || r.status !== 0 || !match) {
    const said = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n')[0];
    const why = r.error
      ? r.error.message
      : r.status !== 0
        ? (r.signal ?? `exit code ${r.status}`)
        : `it printed: ${said || 'nothing'}`;
    fail(`${file} --version did not print a Redis version (${why})`);
  }
  return match[1];
}

function fail(message) {
  console.error(`setup: ${message}`);
  process.exit(1);
}
