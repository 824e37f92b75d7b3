#!/usr/bin/env bash
# Real-time captures of real Laravel 8.83 with its cache store on Redis (CACHE_DRIVER=redis, the
# 8.x skeleton's cache connection in db 1 and lock_connection 'default'), for `lqsim explain`'s
# cache tests: each flow runs its web requests, `queue:work` processes and `queue:restart`
# (explain-cache-flow.php) against a throwaway redis-server on the real clock while `redis-cli
# monitor` records. Writes, per flow, OUTDIR/laravel8-FLOW.txt (the capture) and
# OUTDIR/laravel8-FLOW.events.jsonl (Laravel's own events: handle() started, JobFailed and why, the
# restart value written), the ground truth test/unit/explain-cache-captures.test.ts checks the
# explanation against. research/cache-store.md §7-7.2 recorded the same flows by hand.
#
#   bash conformance/laravel/explain-cache-captures.sh [OUTDIR [FLOW...]]   (default test/fixtures/explain-cache, every flow)
#
# Needs php-cli php-redis php-laravel-framework redis-server redis-tools; every flow: about 15 s.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE/../../test/fixtures/explain-cache}
shift || true
PORT=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')
RS_PID=
MON_PID=
PIDS=()

cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
  [ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null || true
  [ -n "$RS_PID" ] && kill "$RS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  return 0
}
trap cleanup EXIT

redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
RS_PID=$!
for _ in $(seq 50); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done

FLOW=
begin() {                      # a clean server (both dbs), then MONITOR into the flow's capture
  FLOW=$1
  redis-cli -p "$PORT" FLUSHALL >/dev/null
  : >"$OUT/laravel8-$FLOW.events.jsonl"
  redis-cli -p "$PORT" MONITOR >"$OUT/laravel8-$FLOW.txt" &
  MON_PID=$!
  for _ in $(seq 50); do grep -q '^OK' "$OUT/laravel8-$FLOW.txt" 2>/dev/null && break; sleep 0.1; done
}
end() {
  sleep 0.3
  kill "$MON_PID" 2>/dev/null || true
  wait "$MON_PID" 2>/dev/null || true
  MON_PID=
  echo "$FLOW: $(grep -c . "$OUT/laravel8-$FLOW.txt") lines"
}
php_() { PROBE_CASE=$FLOW PROBE_LOG="$OUT/laravel8-$FLOW.events.jsonl" php "$HERE/explain-cache-flow.php" "$@"; }
bg() {                         # php itself in the background
  (PROBE_CASE=$FLOW PROBE_LOG="$OUT/laravel8-$FLOW.events.jsonl" exec php "$HERE/explain-cache-flow.php" "$@") &
  BG=$!
  PIDS+=("$BG")
}
wait_handle() {                # until the flow's Nth handle() has started
  for _ in $(seq 100); do
    [ "$(grep -c '"event":"handle"' "$OUT/laravel8-$FLOW.events.jsonl")" -ge "$1" ] && return 0
    sleep 0.1
  done
  echo "$FLOW: handle() $1 never started" >&2
  exit 1
}

# WithoutOverlapping('order-1')->expireAfter(30), $tries = 2 (SyncOrder). Worker A takes the lock
# for its 3 s job; meanwhile a second SyncOrder is dispatched and worker B pops it: the lock is
# refused, the middleware releases it (releaseAfter 0), B pops it again (attempt 2): refused and
# released again; attempt 3 is past $tries and fails with MaxAttemptsExceededException before any
# middleware (research §7.1). Both workers stop when the queue is empty.
flow_overlap-attempts() {
  begin overlap-attempts
  php_ dispatch "$PORT" SyncOrder 1
  PROBE_BEHAVIOUR=run:3 bg work "$PORT" 1; A=$BG
  wait_handle 1
  php_ dispatch "$PORT" SyncOrder 1
  PROBE_BEHAVIOUR=run:3 bg work "$PORT" 1; B=$BG
  wait "$A" "$B"
  end
}

# overlap-attempts with a store that has no lock_connection (a config/cache.php from before
# skeleton v8.5.6): the locks go over each worker's cache connection, db 1, not the queue's.
flow_overlap-lock-on-cache() {
  begin overlap-lock-on-cache
  php_ dispatch "$PORT" SyncOrder 1
  LOCK_CONNECTION=none PROBE_BEHAVIOUR=run:3 bg work "$PORT" 1; A=$BG
  wait_handle 1
  php_ dispatch "$PORT" SyncOrder 1
  LOCK_CONNECTION=none PROBE_BEHAVIOUR=run:3 bg work "$PORT" 1; B=$BG
  wait "$A" "$B"
  end
}

# research/cache-store.md §7.1, with real processes: UniqueSyncOrder (unique, $uniqueId 42, and
# SyncOrder's middleware) dispatched twice in one request (the second dropped); another process
# takes the overlap lock and keeps it; a daemon (--max-jobs=2) pops the job twice, refused and
# released each time; a `--once` worker pops attempt 3: MaxAttemptsExceededException before the
# middleware, the job deleted and its unique lock force-released (CallQueuedHandler::failed); then
# queue:restart.
flow_research-7-1() {
  begin research-7-1
  php_ dispatch "$PORT" UniqueSyncOrder 2
  php_ hold "$PORT" 'laravel-queue-overlap:App\Jobs\UniqueSyncOrder:order-1' 30
  MAX_JOBS=2 bg work "$PORT" 1; A=$BG
  wait "$A"
  WORK_ONCE=1 bg work "$PORT" 1; B=$BG
  wait "$B"
  php_ restart "$PORT"
  end
}

# Its twin: the same middleware and $tries, no other worker holds the lock, and handle() releases
# the job itself on every attempt: each attempt takes the lock, releases the job from inside
# handle(), then releases the lock (finally); attempt 3 fails with MaxAttemptsExceededException
# as above. The same queue traffic; the locks taken tell it apart.
flow_overlap-self-release() {
  begin overlap-self-release
  php_ dispatch "$PORT" SyncOrderReleasing 1
  bg work "$PORT" 1; A=$BG
  wait "$A"
  end
}

# ShouldBeUnique ($uniqueId 42, no $uniqueFor: SETNX): a request dispatches UpdateSearchIndex twice,
# the second finds the lock held and pushes nothing; a worker runs the first (the lock released with
# DEL after it succeeds) and stops when empty; a second request dispatches it again: taken and pushed.
flow_unique-dropped() {
  begin unique-dropped
  php_ dispatch "$PORT" UpdateSearchIndex 2
  bg work "$PORT" 1; A=$BG
  wait "$A"
  php_ dispatch "$PORT" UpdateSearchIndex 1
  end
}

# queue:restart while a daemon (no --stop-when-empty, --sleep=1) runs its 2 s job: it read the
# restart key when it started and reads it again after the job, sees the new value and stops.
# A second daemon started after the restart reads that value at its start and again after its
# empty poll: unchanged; it stops only because the queue is empty (--stop-when-empty).
flow_restart-signal() {
  begin restart-signal
  php_ dispatch "$PORT" ProbeJob 1
  STOP_WHEN_EMPTY=0 PROBE_BEHAVIOUR=run:2 bg work "$PORT" 1; A=$BG
  wait_handle 1
  sleep 0.5
  php_ restart "$PORT"
  wait "$A"
  sleep 1.1
  bg work "$PORT" 1; B=$BG
  wait "$B"
  end
}

# The same, with the store on the queue's connection (`connection => 'default'`, as 5.3's
# skeleton has it): the restart checks go over each worker's own queue connection, db 0.
flow_restart-on-default() {
  begin restart-on-default
  php_ dispatch "$PORT" ProbeJob 1
  CACHE_CONNECTION=default STOP_WHEN_EMPTY=0 PROBE_BEHAVIOUR=run:2 bg work "$PORT" 1; A=$BG
  wait_handle 1
  sleep 0.5
  CACHE_CONNECTION=default php_ restart "$PORT"
  wait "$A"
  end
}

# Two queue:restart in the same second around a daemon's start: the worker read the first one's
# value at its start, the second writes the same value (the time, in whole seconds), so its check
# after its empty poll reads no change (Worker::queueShouldRestart compares the values) and it
# stops only by --stop-when-empty.
top_of_second() {
  sleep "$(php -r 'printf("%.3f", 1 - fmod(microtime(true), 1));')"
}
flow_restart-same-second() {
  begin restart-same-second
  top_of_second
  php_ restart "$PORT"
  bg work "$PORT" 1; A=$BG
  sleep 0.25
  php_ restart "$PORT"
  wait "$A"
  end
}

# $maxExceptions = 2, $tries = 5 (ImportFeed), handle() throws every time: attempt 1's exception is
# counted in job-exceptions:<uuid> (GET, SETEX 86400 0, INCRBY) and the job released; attempt 2's
# reaches 2: the counter is deleted and the job failed (Worker::markJobAsFailedIfWillExceedMaxExceptions).
flow_max-exceptions() {
  begin max-exceptions
  php_ dispatch "$PORT" ImportFeed 1
  PROBE_BEHAVIOUR=throw:boom bg work "$PORT" 1; A=$BG
  wait "$A"
  end
}

# research §7.2: RateLimited('orders') and RateLimitedWithRedis('orders') (Limit::perMinute(1)),
# ThrottlesExceptions(2, 1) and ThrottlesExceptionsWithRedis(2, 1) whose handle() throws; one
# daemon, --max-jobs=8, stopped when empty.
flow_rate-limited() {
  begin rate-limited
  php_ dispatch "$PORT" ChargeCard 2
  php_ dispatch "$PORT" ChargeCardRedis 2
  php_ dispatch "$PORT" CallPartner 1
  php_ dispatch "$PORT" CallPartnerRedis 1
  MAX_JOBS=8 PROBE_BEHAVIOUR=succeed bg work "$PORT" 1; A=$BG
  wait "$A"
  end
}

ALL=(overlap-attempts overlap-lock-on-cache overlap-self-release research-7-1 unique-dropped restart-signal restart-on-default restart-same-second max-exceptions rate-limited)
[ $# -gt 0 ] || set -- "${ALL[@]}"
for f in "$@"; do
  declare -F "flow_$f" >/dev/null || { echo "explain-cache-captures.sh: no flow '$f' (flows: ${ALL[*]})" >&2; exit 2; }
done
mkdir -p "$OUT"
SECONDS=0
for f in "$@"; do "flow_$f"; done
echo "recorded $# flows in ${SECONDS} s"
