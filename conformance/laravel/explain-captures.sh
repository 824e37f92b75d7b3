#!/usr/bin/env bash
# Real-time captures of real Laravel 8.83 for `lqsim explain`'s tests: each flow runs its web
# request and `queue:work` processes (explain-flow.php) against a throwaway redis-server, on the
# real clock, while `redis-cli monitor` records; kills are real SIGKILLs. Writes, per flow,
# OUTDIR/laravel8-FLOW.txt (the capture) and OUTDIR/laravel8-FLOW.events.jsonl (what Laravel's
# own events said: handle() started, JobFailed and why), the ground truth the findings are
# checked against.
#
#   bash conformance/laravel/explain-captures.sh [OUTDIR]     (default test/fixtures/explain)
#
# Needs php-cli php-redis php-laravel-framework redis-server redis-tools; about 40 s.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE/../../test/fixtures/explain}
mkdir -p "$OUT"
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
}
trap cleanup EXIT

redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
RS_PID=$!
for _ in $(seq 50); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done

FLOW=
begin() {                      # a clean db, then MONITOR into the flow's capture
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
php_() { PROBE_CASE=$FLOW PROBE_LOG="$OUT/laravel8-$FLOW.events.jsonl" php "$HERE/explain-flow.php" "$@"; }
bg() {                         # php itself in the background (exec: $! is php, so kill -9 kills it)
  (PROBE_CASE=$FLOW PROBE_LOG="$OUT/laravel8-$FLOW.events.jsonl" exec php "$HERE/explain-flow.php" "$@") &
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

# retry_after 3 and the skeleton's timeout 60 (timeout >= retry_after), a job of 5 s, two
# workers: the second reserves the job again while the first still runs it.
begin ran-twice
RETRY_AFTER=3 php_ dispatch "$PORT" ProbeJob 1
PROBE_BEHAVIOUR=run:5 RETRY_AFTER=3 bg work "$PORT" 60 3 1; A=$BG
sleep 3.6
PROBE_BEHAVIOUR=run:5 RETRY_AFTER=3 bg work "$PORT" 60 3 1; B=$BG
wait "$A" "$B"
end

# A worker SIGKILLed (a deploy, the OOM killer) while its job runs: the job stays reserved until
# retry_after (2 s) ends, then another worker with the same --tries reserves it (attempt 2).
killed_then_taken() {          # FLOW TRIES
  begin "$1"
  RETRY_AFTER=2 php_ dispatch "$PORT" ProbeJob 1
  PROBE_BEHAVIOUR=run:30 RETRY_AFTER=2 bg work "$PORT" 60 "$2" 1; A=$BG
  wait_handle 1
  kill -9 "$A"; wait "$A" 2>/dev/null || true   # 137
  sleep 2.5
  PROBE_BEHAVIOUR=succeed RETRY_AFTER=2 bg work "$PORT" 60 "$2" 1; B=$BG
  wait "$B"
  end
}
# --tries=3: attempt 2 runs and succeeds.
killed_then_taken killed-worker 3
# queue:work's default --tries=1: attempt 2 fails at once with MaxAttemptsExceededException,
# without running.
killed_then_taken max-attempts 1

# timeout (2) shorter than retry_after (4), as the docs ask: the worker's SIGALRM kills it mid-job
# (attempt 1 of $tries = 2), the next worker reserves it when retry_after ends, times out again,
# and this time fails it before dying (markJobAsFailedIfWillExceedMaxAttempts).
begin timeout-kills
RETRY_AFTER=4 php_ dispatch "$PORT" ProbeTimeoutJob 1
PROBE_BEHAVIOUR=run:30 RETRY_AFTER=4 bg work "$PORT" 2 0 1; A=$BG
wait "$A" 2>/dev/null || true
sleep 2.5
PROBE_BEHAVIOUR=run:30 RETRY_AFTER=4 bg work "$PORT" 2 0 1; B=$BG
wait "$B" 2>/dev/null || true
end
