// The first pass of `lqsim explain` (src/cli/explain.ts) reads each line only as far as the
// configuration needs (CONFIGURATION_ARGS): the configuration it gives must be the one a whole
// reading gives, on every real capture the project holds and on lines shaped to tell apart.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, CONFIGURATION_ARGS, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';

const read = (text: string, first: boolean): CapturedLine[] =>
  text
    .split('\n')
    .map((l, i) => captureEntry(l, i + 1, first ? CONFIGURATION_ARGS : undefined))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));

const sameConfiguration = (text: string): void =>
  expect(captureConfiguration(read(text, true))).toEqual(captureConfiguration(read(text, false)));

const folders = ['../fixtures/explain/', '../fixtures/explain-failed/', '../../conformance/laravel/captures/'].map(
  (d) => new URL(d, import.meta.url),
);
const captures = folders.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.txt') && readFileSync(new URL(f, dir), 'utf8').includes('] "'))
    .map((f) => ({ name: f, text: readFileSync(new URL(f, dir), 'utf8') })),
);

describe("the first pass's reading gives the whole reading's configuration", () => {
  it('holds real captures to check', () => expect(captures.length).toBeGreaterThan(30));

  it.each(captures)('$name', ({ text }) => sameConfiguration(text));

  it('reads a line cut short (a killed redis-cli) whole, so it is a problem in both readings', () => {
    const three = readFileSync(new URL('../fixtures/explain/laravel8-three-jobs.txt', import.meta.url), 'utf8');
    const lines = three.trimEnd().split('\n');
    const cut = [...lines.slice(0, -1), lines.at(-1)!.slice(0, -20)].join('\n');
    sameConfiguration(cut);
    const last = captureEntry(cut.split('\n').at(-1)!, lines.length, CONFIGURATION_ARGS);
    expect(last !== null && isProblem(last) && last.problem).toMatch(/^not a MONITOR line: unterminated argument/);
  });

  it("counts the args it does not read: a ZREM of two copies or an RPUSH of two payloads is not Laravel's", () => {
    const line = (client: string, ...args: string[]) =>
      formatMonitorLine({ time: '1700000000.000001', db: 0, client, args });
    const p = `{"uuid":"u","job":"J","data":{"x":"${'y'.repeat(300)} \\" \\""},"attempts":1}`;
    const text = [
      line('1.1.1.1:1', 'ZREM', 'queues:default:reserved', p),
      line('1.1.1.1:2', 'ZREM', 'queues:default:reserved', p, p),
      line('1.1.1.1:3', 'RPUSH', 'queues:default', p),
      line('1.1.1.1:4', 'RPUSH', 'queues:default', p, p),
      line('1.1.1.1:5', 'ZADD', 'queues:default:delayed', '1700000005', p),
      line('1.1.1.1:6', 'BLPOP', 'queues:default:notify', '5'),
    ].join('\n');
    sameConfiguration(text);
    const ops = captureConfiguration(read(text, true)).connections.map((c) => c.operations);
    expect(ops).toEqual([{ delete: 1 }, {}, { push: 1 }, {}, { later: 1 }, { block: 1 }]);
  });
});
