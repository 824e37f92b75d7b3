// A streaming run (keepSteps: false) ends a step with a mark sent ahead of the next command
// instead of a barrier round trip, and with onCommand attributes MONITOR lines as they arrive.
// Neither may change the trace: every shipped scenario and every conformance fixture gives the
// same commands, in the same steps, as the default run that waits for a barrier after each step.
// (The default run's traces are themselves checked by hand in scenarios.test.ts and against real
// Laravel in conformance.test.ts; this file checks that the two ways of cutting steps agree.)
// A cluster scenario runs on a cluster, whose capture is merged from its nodes at each barrier: it
// never streams, and keepSteps: false must still give the same steps, its commands by onCommand.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listScenarios } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Step, TraceCommand } from '../../src/scenarios/timeline.ts';
import type { RedisClusterServer } from '../../src/redis/cluster-nodes.ts';
import { startLocalRedisCluster } from '../../src/redis/local-cluster.ts';
import { clusterTarget } from '../../src/scenarios/cluster-config.ts';
import type { RedisTarget } from '../../src/scenarios/runner.ts';
import type { ScenarioSpec } from '../../src/scenarios/schema.ts';
import { useRedis } from '../helpers/run.ts';

const server = useRedis();
let cluster: Promise<RedisClusterServer> | undefined;
afterAll(async () => {
  await (await cluster)?.stop();
});
/** The server for a spec: the cluster (started at the first cluster scenario) or the one server. */
async function targetFor(spec: ScenarioSpec): Promise<RedisTarget> {
  return spec.redis.cluster === true ? clusterTarget(await (cluster ??= startLocalRedisCluster())) : server();
}
const FIXTURES = join(import.meta.dirname, '../fixtures/conformance');

/** A command without MONITOR's wall-clock time, which differs between any two runs. */
const timeless = ({ time: _time, ...rest }: TraceCommand) => rest;
const outline = (s: Step) => ({ index: s.index, t: s.t, actor: s.actor, kind: s.kind, title: s.title });

async function files(): Promise<string[]> {
  const shipped = (await listScenarios()).map((e) => e.file);
  const fixtures = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(FIXTURES, f));
  return [...shipped, ...fixtures];
}

describe('a streaming run cuts the trace into the same steps', async () => {
  for (const file of await files()) {
    it(file.split('/').slice(-2).join('/'), async () => {
      const { spec } = await loadScenarioFile(file);
      const redis = await targetFor(spec);
      const reference = await runScenario(spec, { redis, file });
      expect(reference.error).toBeUndefined();

      // Marks, steps with their commands.
      const marked: Step[] = [];
      const t1 = await runScenario(spec, {
        redis,
        file,
        keepSteps: false,
        onStep: (s) => void marked.push(s),
      });
      expect(t1.error).toBeUndefined();
      expect(t1.steps).toEqual([]);
      expect(marked.map(outline)).toEqual(reference.steps.map(outline));
      expect(marked.map((s) => s.commands.map(timeless))).toEqual(reference.steps.map((s) => s.commands.map(timeless)));
      // Streamed steps carry no queue entries (a cluster's, not streamed, keep theirs), but every
      // worker's state as of that step.
      if (spec.redis.cluster !== true) expect(marked.every((s) => s.state.queues.length === 0)).toBe(true);
      expect(marked.map((s) => s.state.workers)).toEqual(reference.steps.map((s) => s.state.workers));

      // onCommand: each command on arrival, before its step reaches onStep, which then has none.
      const arrived: TraceCommand[] = [];
      const stepsSeen: number[] = [];
      const t2 = await runScenario(spec, {
        redis,
        file,
        keepSteps: false,
        onCommand: (c) => {
          // A command never comes after its step was reported.
          expect(stepsSeen.includes(c.step)).toBe(false);
          arrived.push(c);
        },
        onStep: (s) => {
          expect(s.commands).toEqual([]);
          stepsSeen.push(s.index);
        },
      });
      expect(t2.error).toBeUndefined();
      expect(arrived.map(timeless)).toEqual(reference.steps.flatMap((s) => s.commands.map(timeless)));
      expect(stepsSeen).toEqual(reference.steps.map((s) => s.index));
    });
  }
});
