// A version profile: the data and the small rule switches that make one Laravel version's wire
// traffic. One engine runs every profile; a profile is never a copied simulator.
import type { LuaScript, ScriptName } from '../lua.ts';
import type { PhpValue } from '../php.ts';

export type RedisClientName = 'predis' | 'phpredis';

export interface PayloadInput {
  className: string;
  tries: number | null;
  timeout: number | null;
  /** Absolute unix time from retryUntil(), or null. */
  timeoutAt: number | null;
  /** The job's own public properties, in declaration order. */
  properties: Array<[string, PhpValue]>;
  /** Queueable state set by the dispatch: onConnection / onQueue / delay. */
  connection: string | null;
  queue: string | null;
  delay: number | null;
  /** Verbatim data.command, replacing the generated serialize() output. */
  command: string | null;
  id: string;
}

export interface LaravelProfile {
  name: string;
  title: string;
  /** Laravel's default Redis client in config/database.php for this version. */
  defaultClient: RedisClientName;
  scripts: Record<ScriptName, LuaScript>;
  /** What config/queue.php calls the reservation window (5.3: expire). */
  retryAfterName: 'retry_after' | 'expire';
  /** The ready-list payload, keys in PHP array order (json_encode keeps it). */
  buildPayload(input: PayloadInput): Record<string, unknown>;
  worker: WorkerRules;
}

export interface WorkerRules {
  /** RedisJob::attempts(): 5.4+ original attempts + 1; 5.3 the original value (which started at 1). */
  attemptsOf(originalAttempts: number): number;
  /** Job-level $tries / $timeout override the worker options (5.4+). */
  jobLevelOptions: boolean;
  /** Job timeoutAt / retryUntil() is honoured (5.5+). */
  timeoutAt: boolean;
  /** 5.3 arms pcntl_alarm(timeout + sleep) at the top of each loop; 5.4+ arms the job's timeout after the pop. */
  alarm: 'timeout-plus-sleep' | 'job-timeout';
  /** block_for: 5.6-5.7 BLPOP the ready list then ZADD from the client; null: not supported. */
  blockingPop: 'list' | null;
  /** MaxAttemptsExceededException's message. */
  maxAttemptsMessage(displayName: string): string;
  /** Predis sends SELECT <db> on every new connection; phpredis only for a non-zero db. */
  selectOnConnect(client: RedisClientName, database: number): boolean;
}
