// A cluster capture's findings (explain/cluster-configuration.ts reads its facts): a queue whose
// keys span slots. Laravel's scripts name several of a queue's keys (push: the queue and :notify;
// migrate: :delayed or :reserved, the queue, :notify; pop: the queue, :reserved, :notify; release:
// :delayed and :reserved), and a cluster runs a script only when all its keys hash to one slot.
// Without a hash tag in the queue's name they do not: phpredis' RedisCluster::eval() checks the
// keys' slots itself and refuses the script with a warning, "All keys do not map to the same slot",
// before anything is sent (measured with phpredis 5.3.7 and Laravel 8.83; an app's HandleExceptions
// turns the warning into an ErrorException). A node that is sent one refuses it with CROSSSLOT,
// and MONITOR shows no refused command either: the capture cannot tell which refused it. Pure.
import type { ClusterConfiguration, ClusterQueue } from './cluster-configuration.ts';
import type { Finding } from './findings.ts';
import type { Operation } from './recognise.ts';

/** A command of the queue that is no script, so it reaches its key's node whatever the other keys' slots. */
const REACHES: Partial<Record<Operation, string>> = {
  later: "a delayed dispatch's ZADD to :delayed (later() sends no script), a job no worker will migrate",
  push: "a push's RPUSH (before 5.8 a push is no script)",
  reserve: "block_for's ZADD to :reserved (5.6-5.7: a BLPOP pop, then this)",
  delete: "a delete's ZREM",
  block: 'a BLPOP',
};

export function clusterFindings(cluster: ClusterConfiguration | undefined): Finding[] {
  if (cluster === undefined) return [];
  return cluster.queues.flatMap((q) => (q.spansSlots ? spanning(q, cluster.clusterSlots.lines) : []));
}

function spanning(q: ClusterQueue, clusterSlots: readonly number[]): Finding[] {
  // Its scripts ran: a server not in cluster mode took them, whatever the rest of the capture says.
  if (q.scriptLines.length > 0) return [];
  const name = `${q.queue}${q.prefix === '' ? '' : ` (prefix ${q.prefix})`}`;
  const slots = q.keys.map((k) => `${k.key.slice(q.prefix.length)} ${k.slot}`).join(', ');
  const reached = q.operations.filter((o) => REACHES[o.op] !== undefined);
  // What reached Redis, or else the cluster clients that connected and sent nothing of it.
  const cited = reached.flatMap((o) => o.lines);
  const lines = (cited.length > 0 ? cited : [...clusterSlots]).sort((a, b) => a - b);
  const what =
    reached.length === 0
      ? `nothing of this queue reached Redis${clusterSlots.length > 0 ? ' (the cluster clients connected: CLUSTER SLOTS)' : ''}`
      : `what reached Redis of it: ${reached.map((o) => `${o.count} × ${REACHES[o.op]} (${o.lines.length === 1 ? 'line' : 'lines'} ${o.lines.join(', ')})`).join('; ')}`;
  return [
    {
      kind: 'keys-span-slots',
      certainty: 'likely',
      because: `its keys hash to ${new Set(q.keys.map((k) => k.slot)).size} slots (${slots}) and no script of it is in the capture`,
      title:
        `queue ${name} has no hash tag, so its keys span slots and phpredis' RedisCluster refuses each of Laravel's scripts on them before sending it: no push, migrate, pop or release of it is in the capture; ${what}. ` +
        `The dispatcher's dispatch() throws ErrorException "RedisCluster::eval(): All keys do not map to the same slot" (HandleExceptions turns phpredis' warning into it), and each worker reports the same exception once per pop loop, every 1 + --sleep seconds (Worker::getNextJob catches it and sleeps 1 s, then the loop sleeps as after an empty pop): its first migrate is refused, so it never pops nor BLPOPs. ` +
        `A hash tag in the queue's name ('queue' => '{${q.queue}}') puts all its keys in one slot`,
      lines,
      alternatives: [
        {
          kind: 'cross-slot-refused-by-server',
          when: "the app's client sends a script whose keys span slots: the node refuses it with CROSSSLOT, and MONITOR shows no refused command either; the nodes' INFO errorstats tell (errorstat_CROSSSLOT counts the server's refusals, none of phpredis'), as does the app's message (CROSSSLOT Keys in request don't hash to the same slot)",
        },
        {
          kind: 'keys-span-slots',
          when: "the app's error handler lets phpredis' warning pass (no HandleExceptions): eval() returns false, dispatch() returns as if it had pushed, and the job is lost",
        },
      ],
    },
  ];
}
