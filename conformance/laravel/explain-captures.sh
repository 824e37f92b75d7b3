#!/usr/bin/env bash
# Real-time captures of real Laravel 8.83 for `lqsim explain`'s tests: each flow runs its web
# request and `queue:work` processes (explain-flow.php) against a throwaway redis-server, on the
# real clock, while `redis-cli monitor` records; kills are real SIGKILLs. Writes, per flow,
# OUTDIR/laravel8-FLOW.txt (the capture) and OUTDIR/laravel8-FLOW.events.jsonl (what Laravel's
# own events said: handle() started, JobFailed and why), the ground truth the findings are
# checked against. test/fixtures/explain/README.md says what each flow is and which flows pair up
# (the same Redis traffic, another story).
#
#   bash conformance/laravel/explain-captures.sh [OUTDIR [FLOW...]]   (default test/fixtures/explain, every flow)
#
# Needs php-cli php-redis php-laravel-framework redis-server redis-tools; every flow: about 95 s (the sum of each flow's own recording time).
# Re-recording rewrites the fixtures with new ids and times: name the flows you mean to change.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE/../../test/fixtures/explain}
shift || true
PORT=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')
RS_PID=
MON_PID=
CACHE_DIR=
PIDS=()

cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
  [ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null || true
  [ -n "$RS_PID" ] && kill "$RS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  [ -n "$CACHE_DIR" ] && rm -rf "$CACHE_DIR"
  return 0
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
flow_ran-twice() {
  begin ran-twice
  RETRY_AFTER=3 php_ dispatch "$PORT" ProbeJob 1
  PROBE_BEHAVIOUR=run:5 RETRY_AFTER=3 bg work "$PORT" 60 3 1; A=$BG
  sleep 3.6
  PROBE_BEHAVIOUR=run:5 RETRY_AFTER=3 bg work "$PORT" 60 3 1; B=$BG
  wait "$A" "$B"
  end
}

# A worker SIGKILLed (a deploy, the OOM killer) while its job runs: the job stays reserved until
# retry_after (2 s) ends, then another worker with the same --tries reserves it (attempt 2).
killed_then_taken() {          # FLOW TRIES [CLASS]
  begin "$1"
  RETRY_AFTER=2 php_ dispatch "$PORT" "${3:-ProbeJob}" 1
  PROBE_BEHAVIOUR=run:30 RETRY_AFTER=2 bg work "$PORT" 60 "$2" 1; A=$BG
  wait_handle 1
  kill -9 "$A"; wait "$A" 2>/dev/null || true   # 137
  sleep 2.5
  PROBE_BEHAVIOUR=succeed RETRY_AFTER=2 bg work "$PORT" 60 "$2" 1; B=$BG
  wait "$B"
  end
}
# --tries=3: attempt 2 runs and succeeds.
flow_killed-worker() { killed_then_taken killed-worker 3; }
# test/fixtures/explain-failed (record it there: `... explain-captures.sh test/fixtures/explain-failed
# killed-past-tries`): ProbeTimeoutJob has $tries = 2 (payload maxTries 2). Worker A is SIGKILLed in
# attempt 1, worker B (once A's reservation has ended) in attempt 2; worker C pops attempt 3, past
# the payload's maxTries: Worker::markJobAsFailedIfAlreadyExceedsMaxAttempts fails it with
# MaxAttemptsExceededException without running handle() (the ZREM), then C stops when empty.
flow_killed-past-tries() {
  begin killed-past-tries
  RETRY_AFTER=2 php_ dispatch "$PORT" ProbeTimeoutJob 1
  PROBE_BEHAVIOUR=run:30 RETRY_AFTER=2 bg work "$PORT" 60 1 1; A=$BG
  wait_handle 1
  kill -9 "$A"; wait "$A" 2>/dev/null || true
  sleep 2.5
  PROBE_BEHAVIOUR=run:30 RETRY_AFTER=2 bg work "$PORT" 60 1 1; B=$BG
  wait_handle 2
  kill -9 "$B"; wait "$B" 2>/dev/null || true
  sleep 2.5
  PROBE_BEHAVIOUR=succeed RETRY_AFTER=2 bg work "$PORT" 60 1 1; C=$BG
  wait "$C"
  end
}
# queue:work's default --tries=1: attempt 2 fails at once with MaxAttemptsExceededException,
# without running.
flow_max-attempts() { killed_then_taken max-attempts 1; }

# The same kill under --tries=1, of ProbeRetryUntilJob ($tries = 1 and retryUntil() RETRY_UNTIL s
# after dispatch): attempt 2 is past its tries either way, but with a retryUntil in the payload the
# worker's pre-run check goes by it alone (markJobAsFailedIfAlreadyExceedsMaxAttempts: fail when
# now > retryUntil). B's pop comes 2.5 s after the kill, so at least 2 whole seconds after dispatch.
# retryUntil 1 s after dispatch: passed when B reserves attempt 2, which fails at once.
flow_retry-until-passed() { RETRY_UNTIL=1 killed_then_taken retry-until-passed 1 ProbeRetryUntilJob; }
# retryUntil 600 s after dispatch: still ahead, so B runs attempt 2 (past $tries = 1) and it succeeds.
flow_retry-until-ahead() { RETRY_UNTIL=600 killed_then_taken retry-until-ahead 1 ProbeRetryUntilJob; }
# retryUntil 1 s after dispatch, and the one worker starts 2.5 s later: attempt 1, within its
# tries, fails at once all the same (the check goes by retryUntil alone, at any attempt).
flow_retry-until-first-try() {
  begin retry-until-first-try
  RETRY_UNTIL=1 php_ dispatch "$PORT" ProbeRetryUntilJob 1
  sleep 2.5
  PROBE_BEHAVIOUR=succeed bg work "$PORT" 60 1 1; A=$BG
  wait "$A"
  end
}

# timeout (2) shorter than retry_after (4), as the docs ask: the worker's SIGALRM kills it mid-job
# (attempt 1 of $tries = 2), the next worker reserves it when retry_after ends, times out again,
# and this time fails it before dying (markJobAsFailedIfWillExceedMaxAttempts).
flow_timeout-kills() {
  begin timeout-kills
  RETRY_AFTER=4 php_ dispatch "$PORT" ProbeTimeoutJob 1
  PROBE_BEHAVIOUR=run:30 RETRY_AFTER=4 bg work "$PORT" 2 0 1; A=$BG
  wait "$A" 2>/dev/null || true
  sleep 2.5
  PROBE_BEHAVIOUR=run:30 RETRY_AFTER=4 bg work "$PORT" 2 0 1; B=$BG
  wait "$B" 2>/dev/null || true
  end
}

# ---- Pairs: the same Redis traffic, two stories (test/fixtures/explain/README.md) ----

# Two workers, retry_after 2, the job takes 4 s on attempt 1: worker B reserves it again (attempt 2)
# while A still runs it, B's delete comes before A's, both then poll once and stop when empty.
# $2 is --tries, $3 what attempt 2 does (B runs it only under --tries above 1).
second_worker_takes_it() {     # FLOW TRIES BEHAVIOUR
  begin "$1"
  RETRY_AFTER=2 php_ dispatch "$PORT" ProbeJob 1
  PROBE_BEHAVIOUR=$3 RETRY_AFTER=2 bg work "$PORT" 60 "$2" 1; A=$BG
  wait_handle 1
  sleep 2.2
  PROBE_BEHAVIOUR=$3 RETRY_AFTER=2 bg work "$PORT" 60 "$2" 1; B=$BG
  wait "$A" "$B"
  end
}
# --tries=3: B runs handle() again (1 s), at the same time as A.
flow_ran-twice-tries3() { second_worker_takes_it ran-twice-tries3 3 run:4,run:1; }
# --tries=1: B fails it at once with MaxAttemptsExceededException, handle() not run.
flow_max-attempts-tries1() { second_worker_takes_it max-attempts-tries1 1 run:4,run:1; }
# --tries=3 and attempt 2 returns at once: B's delete is as quick as a MaxAttemptsExceeded failure.
flow_ran-twice-quick() { second_worker_takes_it ran-twice-quick 3 run:4,succeed; }

# One worker, one job, retry_after 90: a pop, a ZREM, then nothing more from that worker.
one_job_then_quiet() {         # FLOW CLASS BEHAVIOUR TIMEOUT TRIES (worker env before: VAR=.. one_job_then_quiet)
  begin "$1"
  php_ dispatch "$PORT" "$2" 1
  PROBE_BEHAVIOUR=$3 bg work "$PORT" "$4" "$5" 1; A=$BG
  wait "$A" 2>/dev/null || true
  end
}
# A daemon's --timeout=2 alarm on the job's last attempt (--tries=1, nothing in the payload):
# Worker::registerTimeoutHandler fails it (ZREM) and kills its own process.
flow_timed-out() { STOP_WHEN_EMPTY=0 one_job_then_quiet timed-out ProbeJob run:30 2 1; }
# `--once`: the job takes 2 s (as long as the alarm above), succeeds, the process exits.
flow_once-succeeded() { WORK_ONCE=1 one_job_then_quiet once-succeeded ProbeJob run:2 2 1; }
# `--once --tries=1`: handle() throws, its last try: failed (ZREM), the process exits.
flow_once-failed() { WORK_ONCE=1 one_job_then_quiet once-failed ProbeJob throw:boom 2 1; }
# `--max-jobs=1`: after its one job (2 s) the daemon stops before polling again.
flow_max-jobs() { STOP_WHEN_EMPTY=0 MAX_JOBS=1 one_job_then_quiet max-jobs ProbeJob run:2 60 1; }
# `--max-time=1`: after a 2 s job the daemon has run too long and stops before polling again.
flow_max-time() { STOP_WHEN_EMPTY=0 MAX_TIME=1 one_job_then_quiet max-time ProbeJob run:2 60 1; }

# `queue:restart` while a daemon (no --stop-when-empty, --sleep=1) runs its 2 s job: the worker
# reads illuminate:queue:restart from the cache when it starts and again after each job
# (Worker::stopIfNecessary), sees another value and stops before polling again. The cache is the
# 8.x skeleton's file store, in a folder the flow's processes share (CACHE_PATH): nothing of it
# reaches Redis.
flow_restart-after-job() {
  begin restart-after-job
  CACHE_DIR=$(mktemp -d)
  php_ dispatch "$PORT" ProbeJob 1
  CACHE_PATH=$CACHE_DIR STOP_WHEN_EMPTY=0 PROBE_BEHAVIOUR=run:2 bg work "$PORT" 60 1 1; A=$BG
  wait_handle 1
  sleep 0.5
  CACHE_PATH=$CACHE_DIR php_ restart "$PORT"
  wait "$A"
  rm -rf "$CACHE_DIR"; CACHE_DIR=
  end
}

# A pop, then nothing from that worker: killed from outside mid-job, or still running when the
# capture ends, or killed by its own --timeout alarm on an attempt that is not its last.
flow_killed-mid-job() {
  begin killed-mid-job
  php_ dispatch "$PORT" ProbeJob 1
  PROBE_BEHAVIOUR=run:30 bg work "$PORT" 60 3 1; A=$BG
  wait_handle 1
  sleep 1
  kill -9 "$A"; wait "$A" 2>/dev/null || true
  sleep 1
  end
}
flow_capture-ended-mid-job() { # the monitor stops 2 s into a 3 s job; the events go on after it
  begin capture-ended-mid-job
  php_ dispatch "$PORT" ProbeJob 1
  PROBE_BEHAVIOUR=run:3 bg work "$PORT" 60 3 1; A=$BG
  wait_handle 1
  sleep 1.7
  end
  wait "$A"
}
flow_timeout-killed-not-last() { STOP_WHEN_EMPTY=0 one_job_then_quiet timeout-killed-not-last ProbeJob run:30 2 3; }

# retry_after 2 and the skeleton's --timeout=60 (timeout >= retry_after): a 3 s job's reservation
# ends while it runs (nobody else polls, so it still runs once) against a 1 s job inside it.
flow_reservation-expired() { RETRY_AFTER=2 one_job_then_quiet reservation-expired ProbeJob run:3 60 1; }
flow_finished-inside-reservation() { RETRY_AFTER=2 one_job_then_quiet finished-inside-reservation ProbeJob run:1 60 1; }

# Many delayed jobs falling due (test/fixtures/explain/README.md, big-migration). One web request
# dispatches 1200 jobs with ->delay(2) (Queue::later: a ZADD to :delayed each, its score the
# dispatch's whole second + 2). One daemon (--sleep=1) starts once every score is due, so its first
# poll's migrate of :delayed moves all 1200 in one EVAL (LuaScripts::migrateExpiredJobs rpushes
# them in chunks of 100 inside the script). Its jobs take 1 s and --max-time=4 stops it after a
# few, the rest left on the queue: every job run would add its EVALs and payloads (about 6 KB of
# capture), and the story is the migrate.
top_of_second() {              # the request's ZADDs (0.2 s) then share one whole second: one score per delay
  sleep "$(php -r 'printf("%.3f", 1 - fmod(microtime(true), 1));')"
}
flow_big-migration-delayed() {
  begin big-migration-delayed
  top_of_second
  php_ dispatch "$PORT" ProbeJob 1200 2
  sleep 2.5
  STOP_WHEN_EMPTY=0 MAX_TIME=4 PROBE_BEHAVIOUR=run:1 bg work "$PORT" 60 1 1; A=$BG
  wait "$A"
  end
}
# Its twin: the same 1200 jobs in three batches of 400, ->delay(1), (2) and (3), and the same
# daemon started at once: it polls every second (an empty poll, then one per 1 s job), so each
# migrate moves only the batch that fell due since the last.
flow_many-delayed-spread() {
  begin many-delayed-spread
  top_of_second
  php_ dispatch "$PORT" ProbeJob 1200 1,2,3
  STOP_WHEN_EMPTY=0 MAX_TIME=4 PROBE_BEHAVIOUR=run:1 bg work "$PORT" 60 1 1; A=$BG
  wait "$A"
  end
}

ALL=(ran-twice killed-worker max-attempts retry-until-passed retry-until-ahead retry-until-first-try timeout-kills
  ran-twice-tries3 max-attempts-tries1 ran-twice-quick
  timed-out once-succeeded once-failed max-jobs max-time restart-after-job
  killed-mid-job capture-ended-mid-job timeout-killed-not-last
  reservation-expired finished-inside-reservation
  big-migration-delayed many-delayed-spread)
[ $# -gt 0 ] || set -- "${ALL[@]}"
for f in "$@"; do
  declare -F "flow_$f" >/dev/null || { echo "explain-captures.sh: no flow '$f' (flows: ${ALL[*]})" >&2; exit 2; }
done
mkdir -p "$OUT"
SECONDS=0
for f in "$@"; do "flow_$f"; done
echo "recorded $# flows in ${SECONDS} s"
