// Where real Laravel is: Debian's php-laravel-framework (8.83) under /usr/share/php, a php-cli
// with the redis (phpredis), pcntl and posix extensions, and the harness in this package.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';

export const INSTALL_HINT =
  "real Laravel runs from Debian's packages: apt-get install -y php-cli php-redis php-laravel-framework";

export interface Laravel8Installation {
  php: string;
  harness: string;
  version: string;
}

export class LaravelUnavailableError extends Error {}

let cached: Laravel8Installation | null = null;

/** The PHP binary and harness, checked once; throws LaravelUnavailableError saying what is missing. */
export function laravel8Installation(): Laravel8Installation {
  if (cached) return cached;
  const php = process.env.LQSIM_PHP ?? 'php';
  const harness = join(PACKAGE_ROOT, 'conformance', 'laravel', 'harness.php');
  if (!existsSync(harness)) throw new LaravelUnavailableError(`the conformance harness is missing (${harness})`);
  const probe = spawnSync(
    php,
    [
      '-r',
      'foreach (["redis","pcntl","posix"] as $e) if (!extension_loaded($e)) { echo "missing:$e"; exit(1); } ' +
        '@include "/usr/share/php/Illuminate/autoload.php"; if (!class_exists("Illuminate\\\\Foundation\\\\Application")) { echo "missing:laravel"; exit(1); } ' +
        'echo Illuminate\\Foundation\\Application::VERSION;',
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (probe.error) throw new LaravelUnavailableError(`no PHP (${php}): ${INSTALL_HINT}`);
  const out = probe.stdout.trim();
  if (probe.status !== 0)
    throw new LaravelUnavailableError(
      `${out.startsWith('missing:') ? `PHP lacks ${out.slice(8)}` : `PHP failed: ${probe.stderr.trim().split('\n')[0]}`}; ${INSTALL_HINT}`,
    );
  if (!out.startsWith('8.'))
    throw new LaravelUnavailableError(
      `the installed Laravel is ${out}; the harness drives 8.x (Debian bookworm's 8.83)`,
    );
  cached = { php, harness, version: out };
  return cached;
}
