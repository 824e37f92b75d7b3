// README.md's tables say which profiles each ported case runs for; this keeps them true to the
// case tables the tests actually run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LaravelCase } from './harness.ts';
import { QUEUE_REDIS_JOB_TEST, QUEUE_REDIS_QUEUE_TEST } from './queue-redis-queue-test.cases.ts';
import { QUEUE_WORKER_TEST } from './queue-worker-test.cases.ts';
import { REDIS_QUEUE_TEST } from './redis-queue-test.cases.ts';

const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');

/** Laravel test name → the profiles ticked (✓) in the README table under `### \`<file>\``. */
function table(file: string): Map<string, string[]> {
  const start = readme.indexOf(`### \`${file}\``);
  if (start < 0) throw new Error(`README.md has no section for ${file}`);
  const end = readme.indexOf('\n#', start + 1);
  const rows = readme
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((l) => l.startsWith('|'));
  const cells = (row: string) =>
    row
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const header = cells(rows[0]!);
  const out = new Map<string, string[]>();
  for (const row of rows.slice(2)) {
    const c = cells(row);
    const name = /^`(?:\w+::)?(test\w+)`$/.exec(c[0]!)?.[1];
    if (!name) continue;
    out.set(
      name,
      header.flatMap((h, i) => (/^\d+(\.\d+)?$/.test(h) && c[i] === '✓' ? [h] : [])),
    );
  }
  return out;
}

/** The cases named after a Laravel method, with the profiles they run for. */
function cases(...lists: LaravelCase[][]): Map<string, string[]> {
  return new Map(
    lists
      .flat()
      .filter((c) => c.name.startsWith('test'))
      .map((c) => [c.name, [...c.profiles]]),
  );
}

describe('test/laravel/README.md', () => {
  it('lists every ported RedisQueueTest case with the profiles it runs for', () => {
    expect(table('redis-queue-test.test.ts')).toEqual(cases(REDIS_QUEUE_TEST));
  });

  it('lists every ported QueueRedisQueueTest / QueueRedisJobTest case with the profiles it runs for', () => {
    expect(table('queue-redis-queue-test.test.ts')).toEqual(cases(QUEUE_REDIS_QUEUE_TEST, QUEUE_REDIS_JOB_TEST));
  });

  it('lists every ported QueueWorkerTest case with the profiles it runs for', () => {
    expect(table('queue-worker-test.test.ts')).toEqual(cases(QUEUE_WORKER_TEST));
  });
});
