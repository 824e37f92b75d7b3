// The db rule (src/trace/database.ts) for a run that holds two dbs of a shared server: the queue's
// (`redis.database`) and the cache store's (`redis.cache_database`). Each claimed db reads as its
// own scenario db, SELECT's argument and MONITOR's db alike; a db neither of them claimed keeps
// its number; the notes say which db moved. Hand-built commands, as Laravel 8 sends them: the
// queue's connection SELECTs redis.database, the cache's connection redis.cache_database.
import { describe, expect, it } from 'vitest';
import type { DatabaseUse } from '../../src/scenarios/timeline.ts';
import { dbRule } from '../../src/trace/database.ts';
import { normaliseTrace } from '../../src/trace/normalise.ts';

const client = (db: number, ...args: string[]) => ({ source: 'client' as const, db, args });
const lua = (db: number, ...args: string[]) => ({ source: 'lua' as const, db, args });
const CACHE = 'redis.cache_database';

describe('dbRule with the cache db', () => {
  it("reads the queue db claimed as 1 and the cache db claimed as 2 as the scenario's 0 and 1", () => {
    const use: DatabaseUse = { scenario: 0, used: 1, others: [{ scenario: 1, used: 2, field: CACHE }] };
    const rule = dbRule(use)!;
    expect(
      [
        client(1, 'SELECT', '1'), // the queue's connection
        client(1, 'EVAL', 'pop', '2'),
        lua(1, 'lpop', 'queues:default'),
        client(2, 'SELECT', '2'), // the cache's connection
        client(2, 'GET', 'laravel_cache:illuminate:queue:restart'),
        client(0, 'SELECT', '5'), // neither: as it is
        client(5, 'GET', 'x'),
      ].map((c) => rule.map(c)),
    ).toEqual([
      client(0, 'SELECT', '0'),
      client(0, 'EVAL', 'pop', '2'),
      lua(0, 'lpop', 'queues:default'),
      client(1, 'SELECT', '1'),
      client(1, 'GET', 'laravel_cache:illuminate:queue:restart'),
      client(0, 'SELECT', '5'),
      client(5, 'GET', 'x'),
    ]);
    expect(rule.note).toBe(
      "SELECT 1 compared as the scenario's db 0: this run claimed db 1 on a shared server; SELECT 2 compared as the scenario's redis.cache_database 1: this run claimed db 2 on a shared server",
    );
  });

  it('maps only the cache db when the queue db was free', () => {
    const rule = dbRule({ scenario: 0, used: 0, others: [{ scenario: 1, used: 3, field: CACHE }] })!;
    expect(
      [client(0, 'SELECT', '1'), client(3, 'SELECT', '3'), client(3, 'SETEX', 'k', '86400', '0')].map((c) =>
        rule.map(c),
      ),
    ).toEqual([client(0, 'SELECT', '1'), client(1, 'SELECT', '1'), client(1, 'SETEX', 'k', '86400', '0')]);
    expect(rule.note).toBe(
      "SELECT 3 compared as the scenario's redis.cache_database 1: this run claimed db 3 on a shared server",
    );
  });

  it('is none when neither moved, or exact dbs are asked for', () => {
    expect(dbRule({ scenario: 0, used: 0, others: [{ scenario: 1, used: 1, field: CACHE }] })).toBeNull();
    expect(dbRule({ scenario: 0, used: 1, others: [{ scenario: 1, used: 2 }] }, { exactDb: true })).toBeNull();
  });

  it('the normaliser compares both as the scenario would give them', () => {
    const trace = {
      start: 1700000000,
      steps: [
        {
          actor: 'worker-1',
          commands: [client(1, 'SELECT', '1'), client(2, 'SELECT', '2'), client(2, 'GET', 'k')].map((c) => ({
            ...c,
            actor: 'worker-1',
          })),
        },
      ],
      database: { scenario: 0, used: 1, others: [{ scenario: 1, used: 2, field: CACHE }] },
    };
    const n = normaliseTrace(trace);
    expect(n.steps[0]!.commands.map((c) => [c.db, ...c.args])).toEqual([
      [0, 'SELECT', '0'],
      [1, 'SELECT', '1'],
      [1, 'GET', 'k'],
    ]);
  });
});
