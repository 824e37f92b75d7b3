// The care a run takes on someone else's cluster (REDIS_CLUSTER_URL). A cluster has db 0 alone, so
// a run cannot take an empty db of its own as it does on REDIS_URL (claim.ts); it takes its keys'
// slots instead, and refuses what would mix its jobs with someone else's:
// - a key it will create that already exists (someone's data, or a killed run's leftover);
// - another client blocked on any node (CLIENT LIST flag b: an app's worker in BLPOP would be
//   handed the run's first job);
// - a slot another lqsim run holds: each slot the run's keys hash to gets a claim key in that very
//   slot (`lqsim:claim:{<tag>}`, one name per slot, so two runs with keys in one slot meet on it),
//   SET NX with an expiry a heartbeat renews; the second run is refused naming the first's run id.
// The end deletes the run's keys and its claim keys, slot by slot, in one script each, while the
// slot is not another run's. A process killed with SIGKILL cannot: its claims expire, its keys stay,
// and the next run is refused naming them.
import { registerCleanup } from '../cleanup.ts';
import { describeClient, type Sender } from './claim-clients.ts';
import type { ClusterNode } from './cluster-nodes.ts';
import { nodeOfSlot } from './cluster-nodes.ts';
import { parseClientList } from './connections.ts';
import { RedisRefusedError } from './errors.ts';
import { keySlot, SLOT_COUNT } from './slot.ts';

export const CLUSTER_CLAIM_PREFIX = 'lqsim:claim:';
/** How long a slot's claim lives without a heartbeat (claim.ts's CLAIM_TTL_MS). */
export const CLUSTER_CLAIM_TTL_MS = 30_000;

/** KEYS: the claim; ARGV: token, ttl (ms). */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`;

/**
 * KEYS: the claim, then the run's keys in its slot; ARGV: token. Deletes them unless another run
 * holds the slot now (ours lost and taken since). {1} when done, {0, holder}, {-1, key, error}.
 */
const END = `local holder = redis.call('get', KEYS[1])
if holder and holder ~= ARGV[1] then return {0, holder} end
for i = 2, #KEYS do
  local r = redis.pcall('del', KEYS[i])
  if type(r) == 'table' and r.err then return {-1, KEYS[i], r.err} end
end
if holder then redis.call('del', KEYS[1]) end
return {1}`;

/** A slot the run needs is another lqsim run's now: it may wait for it (RunResources). */
export class SlotHeldError extends RedisRefusedError {}

export interface ClusterClaimOptions {
  /** Every key the run will create: each must not exist yet; their slots are claimed. */
  keys: readonly string[];
  ttlMs?: number;
}

export interface SlotClaim {
  slot: number;
  node: ClusterNode;
  /** `lqsim:claim:{<tag>}`, a key in `slot`. */
  key: string;
}

export interface ClusterClaim {
  /** The slots the run holds, ascending. */
  readonly slots: readonly SlotClaim[];
  /** Set when a heartbeat found a slot's claim gone (expired while the process stalled, or deleted). */
  lost(): string | null;
  /**
   * Deletes `created` (default: every key the claim was taken for; [] when the run wrote nothing)
   * and the claim keys, and stops the heartbeat; throws naming what was left. Safe to call twice.
   */
  release(created?: readonly string[]): Promise<void>;
}

let tags: string[] | undefined;

/** The claim key of a slot: one name per slot, whichever run asks, found once by trying short tags. */
export function slotClaimKey(slot: number): string {
  if (tags === undefined) {
    const found: string[] = new Array<string>(SLOT_COUNT);
    for (let i = 0, filled = 0; filled < SLOT_COUNT; i++) {
      const tag = i.toString(36);
      const s = keySlot(tag);
      if (found[s] === undefined) {
        found[s] = tag;
        filled++;
      }
    }
    tags = found;
  }
  return `${CLUSTER_CLAIM_PREFIX}{${tags[slot]!}}`;
}

function at(node: ClusterNode): string {
  return `${node.label} (${node.host}:${node.port})`;
}

/**
 * Claims the slots of `opts.keys` on `nodes` for run `token`, through `senderOf(node)` (a connection
 * to that node whose commands are not traced), or refuses in one line naming what is in the way.
 */
export async function claimClusterKeys(
  nodes: readonly ClusterNode[],
  senderOf: (node: ClusterNode) => Sender,
  token: string,
  opts: ClusterClaimOptions,
): Promise<ClusterClaim> {
  const ttlMs = opts.ttlMs ?? CLUSTER_CLAIM_TTL_MS;
  const bySlot = new Map<number, string[]>();
  for (const key of new Set(opts.keys)) {
    const slot = keySlot(key);
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), key]);
  }
  const slots: SlotClaim[] = [...bySlot.keys()]
    .sort((a, b) => a - b)
    .map((slot) => ({ slot, node: nodeOfSlot(nodes, slot), key: slotClaimKey(slot) }));

  // Ascending slots: of two runs wanting one slot, the one that sets it first wins, and the other
  // gives back what it took before it.
  const taken: SlotClaim[] = [];
  const giveBack = async (): Promise<void> => {
    for (const s of taken) await endSlot(senderOf(s.node), s, token, []).catch(() => undefined);
  };
  try {
    for (const s of slots) {
      const set = await senderOf(s.node).sendCommand(['SET', s.key, token, 'NX', 'PX', String(ttlMs)]);
      if (set === null) {
        const holder = await senderOf(s.node).sendCommand(['GET', s.key]);
        throw new SlotHeldError(
          `slot ${s.slot} on ${at(s.node)} is held by another lqsim run (run ${String(holder)}, claim key ${s.key}): two runs must not share queue keys on one cluster; wait for it to end`,
        );
      }
      taken.push(s);
    }
    for (const s of slots)
      for (const key of bySlot.get(s.slot)!)
        if (Number(await senderOf(s.node).sendCommand(['EXISTS', key])) > 0)
          throw new RedisRefusedError(
            `key ${key} already exists on ${at(s.node)}: the run creates it and would mix its jobs with what is there (someone's queue, or what a killed run left); delete it or name another queue`,
          );
    for (const node of nodes) {
      // Another lqsim run's worker (its connections are named lqsim:<run>:...) blocks on its own
      // keys, in slots it holds: never this run's, whose slots were just claimed.
      const blocked = parseClientList(String(await senderOf(node).sendCommand(['CLIENT', 'LIST']))).find(
        (c) => (c.flags ?? '').includes('b') && !(c.name ?? '').startsWith('lqsim:'),
      );
      if (blocked !== undefined)
        throw new RedisRefusedError(
          `a client is blocked on ${at(node)}: ${describeClient({ addr: blocked.addr ?? '?', name: blocked.name ?? '', cmd: blocked.cmd ?? '' })}; a worker waiting in BLPOP would take the run's jobs. Stop it, or use a cluster of your own`,
        );
    }
  } catch (e) {
    await giveBack();
    throw e;
  }
  return held(slots, bySlot, senderOf, token, ttlMs);
}

function held(
  slots: readonly SlotClaim[],
  bySlot: ReadonlyMap<number, string[]>,
  senderOf: (node: ClusterNode) => Sender,
  token: string,
  ttlMs: number,
): ClusterClaim {
  let lost: string | null = null;
  let releasing: Promise<void> | undefined;
  let beat: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      beat = Promise.all(
        slots.map((s) =>
          senderOf(s.node)
            .sendCommand(['EVAL', RENEW, '1', s.key, token, String(ttlMs)])
            .then((r) => {
              if (Number(r) !== 1 && releasing === undefined && lost === null)
                lost = `the claim on slot ${s.slot} (${s.key} on ${at(s.node)}) was lost: it expired or was deleted`;
            }),
        ),
      ).catch(() => undefined); // a closed connection ends the run by itself
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  const all = [...bySlot.values()].flat();
  // Ctrl-C: the keys it would create did not exist when it claimed their slots, so they are its own.
  const unregister = registerCleanup(() => release(all));
  function release(created: readonly string[] = all): Promise<void> {
    return (releasing ??= (async () => {
      clearInterval(timer);
      unregister();
      await beat;
      const failed: string[] = [];
      const strays = created.filter((k) => !slots.some((s) => s.slot === keySlot(k)));
      if (strays.length > 0) failed.push(`not deleted, in no slot this run claimed: ${strays.join(', ')}`);
      for (const s of slots) {
        const mine = created.filter((k) => keySlot(k) === s.slot);
        await endSlot(senderOf(s.node), s, token, mine).catch((e: unknown) =>
          failed.push(e instanceof Error ? e.message : String(e)),
        );
      }
      if (failed.length > 0)
        throw new Error(`the run's keys on the cluster were not all deleted: ${failed.join('; ')}`);
    })());
  }
  return { slots, lost: () => lost, release };
}

async function endSlot(node: Sender, s: SlotClaim, token: string, keys: readonly string[]): Promise<void> {
  const r = await node.sendCommand(['EVAL', END, String(1 + keys.length), s.key, ...keys, token]);
  const [code, a, b] = (Array.isArray(r) ? r : []).map(String);
  if (code === '1') return;
  if (code === '0')
    throw new Error(
      `slot ${s.slot} on ${at(s.node)} is another run's now (run ${a})${keys.length > 0 ? `: the run's keys there were left (${keys.join(', ')})` : ''}`,
    );
  throw new Error(`DEL of ${a} on ${at(s.node)} refused: ${b}`);
}
