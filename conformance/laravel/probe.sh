#!/usr/bin/env bash
# Ground-truth probe: drive Debian's Laravel 8.83 queue (RedisQueue + Worker) against a
# throwaway redis-server and record MONITOR. Reproduces conformance/laravel/captures/.
#
#   bash conformance/laravel/probe.sh [OUTDIR]
#
# Needs (Debian bookworm): php-cli php-redis php-laravel-framework redis-server redis-tools perl.
# Takes about 25 s of wall time (block_for waits, worker sleeps, timeout alarms are real).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE/captures}
T0=1700000000
mkdir -p "$OUT"
rm -f "$OUT"/*.txt "$OUT"/*.jsonl "$OUT"/*.log

PORT=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')
RS_PID=
MON_PID=
BG_PIDS=()

cleanup() {
  local p
  for p in "${BG_PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  [ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null || true
  [ -n "$RS_PID" ] && kill "$RS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no >"$OUT/redis-server.log" 2>&1 &
RS_PID=$!
for _ in $(seq 50); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done

redis-cli -p "$PORT" MONITOR >"$OUT/monitor.raw.txt" &
MON_PID=$!
for _ in $(seq 50); do grep -q '^OK' "$OUT/monitor.raw.txt" 2>/dev/null && break; sleep 0.1; done

{
  echo "redis-server: $(redis-server --version)"
  echo "php: $(php -r 'echo PHP_VERSION;') phpredis $(php -r 'echo phpversion("redis");')"
  echo "laravel: $(php -r 'require "/usr/share/php/Illuminate/autoload.php"; echo Illuminate\Foundation\Application::VERSION;')"
  dpkg-query -W -f='${Package} ${Version}\n' php-laravel-framework php-illuminate-queue php-illuminate-redis \
    php-nesbot-carbon php-redis php8.2-cli redis-server redis-tools 2>/dev/null || true
  echo "port: $PORT  T0: $T0"
} >"$OUT/versions.txt"

CASE=
rc() { redis-cli -p "$PORT" "$@" >/dev/null; }

case_begin() {               # FLUSHALL (belongs to the previous section), then the label
  CASE=$1
  rc FLUSHALL
  rc ECHO "case:$CASE"
  echo "== case $CASE: $2" >>"$OUT/steps.log"
}

label() { rc ECHO "step:$CASE:$1"; echo "   - $1" >>"$OUT/steps.log"; }

# run one probe.php step as its own process (= its own Redis connection)
step() {
  local st=0
  PROBE_CASE=$CASE PROBE_LOG="$OUT/$CASE.events.jsonl" timeout 120 php "$HERE/probe.php" "$@" port="$PORT" || st=$?
  echo "     php probe.php $* -> exit $st" >>"$OUT/steps.log"
  return 0
}

# run a step in the background; sets BG to its pid
step_bg() {
  PROBE_CASE=$CASE PROBE_LOG="$OUT/$CASE.events.jsonl" php "$HERE/probe.php" "$@" port="$PORT" &
  BG=$!
  BG_PIDS+=("$BG")
  echo "     php probe.php $* (background pid $BG)" >>"$OUT/steps.log"
}

wait_bg() {                  # wait for $1, log its exit status (137 = SIGKILL)
  local st=0
  wait "$1" || st=$?
  echo "     background pid $1 -> exit $st" >>"$OUT/steps.log"
}

wait_event() {               # wait until the case's event log has an event named $1
  for _ in $(seq 100); do
    grep -q "\"event\":\"$1\"" "$OUT/$CASE.events.jsonl" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for $1" >&2
  return 1
}

dump_state() {               # keys and contents; bracketed so the splitter leaves it out
  local f="$OUT/$CASE.state.txt" k t
  rc ECHO dump-begin
  echo "--- after: $1" >>"$f"
  for k in $(redis-cli -p "$PORT" --raw KEYS '*' | sort); do
    t=$(redis-cli -p "$PORT" --raw TYPE "$k")
    echo "$k ($t)" >>"$f"
    case $t in
      list) redis-cli -p "$PORT" LRANGE "$k" 0 -1 | sed 's/^/    /' >>"$f" ;;
      zset) redis-cli -p "$PORT" ZRANGE "$k" 0 -1 WITHSCORES | sed 's/^/    /' >>"$f" ;;
      *) redis-cli -p "$PORT" DUMP "$k" | sed 's/^/    /' >>"$f" ;;
    esac
  done
  rc ECHO dump-end
}

# ---------------------------------------------------------------- (a) dispatch
case_begin a "dispatch (push)"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "ProbeTextJob::dispatch(text with slash, quote, backslash, non-ASCII)"
step dispatch class=ProbeTextJob 'text=a/b "q" \ é 日本' now=$T0
label "Queue::push(string job)"
step push-string now=$T0
dump_state "a: three pushes"
label "Queue::pop() x3: the pop script's cjson re-encoding of each payload"
step pop now=$T0
step pop now=$T0
step pop now=$T0
dump_state "a: three reserved"

# ---------------------------------------------------------------- (b) later
case_begin b "later(60) and the migration of due delayed jobs"
label "Queue::later(60, new ProbeJob)"
step later class=ProbeJob delay=60 now=$T0
label "ProbeJob::dispatch()->delay(60)"
step dispatch class=ProbeJob delay=60 now=$T0
dump_state "b: two delayed"
label "runNextJob at T0+59 (nothing due)"
step work-once now=$((T0 + 59)) sleep=0
label "runNextJob at T0+60 (both due: migrated, one popped and run)"
step work-once now=$((T0 + 60))
label "runNextJob at T0+60 (second one)"
step work-once now=$((T0 + 60))
dump_state "b: both run"

# ---------------------------------------------------------------- (c) success
case_begin c "runNextJob with WorkerOptions defaults, job succeeds"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "runNextJob (defaults)"
step work-once now=$T0
dump_state "c: done"

# ---------------------------------------------------------------- (d)+(e) retries then fail
case_begin d "job throws, tries=3 backoff=[5,10] on the job: released twice"
export PROBE_BEHAVIOUR="throw:boom 1,throw:boom 2,throw:boom 3"
label "ProbeRetryJob::dispatch()"
step dispatch class=ProbeRetryJob now=$T0
label "runNextJob at T0: attempt 1 throws -> release(5)"
step work-once now=$T0
dump_state "d: attempt 1 released"
label "runNextJob at T0+5: attempt 2 throws -> release(10)"
step work-once now=$((T0 + 5))
dump_state "d: attempt 2 released"
rc ECHO "case:e"          # no FLUSHALL: (e) continues (d)
CASE=e
echo "== case e: (continues d) the last try throws: fail path" >>"$OUT/steps.log"
label "runNextJob at T0+15: attempt 3 throws -> failJob (ZREM)"
step work-once now=$((T0 + 15))
dump_state "e: failed"

case_begin e2 "worker defaults (--tries=1), job without \$tries throws on attempt 1"
export PROBE_BEHAVIOUR="throw:boom"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "runNextJob (defaults): attempt 1 throws -> failJob"
step work-once now=$T0
dump_state "e2: failed"
unset PROBE_BEHAVIOUR

# ---------------------------------------------------------------- (f) block_for
case_begin f1 "block_for=5, empty queue"
label "runNextJob block_for=5 (BLPOP times out after 5 s, then sleep 3)"
step work-once block_for=5 now=$T0
case_begin f2 "block_for=5, a job already waiting"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "runNextJob block_for=5"
step work-once block_for=5 now=$T0
case_begin f3 "block_for=5, a job dispatched while the worker blocks"
label "runNextJob block_for=5 (background)"
step_bg work-once block_for=5 now=$T0
W=$BG
sleep 1.5
label "ProbeJob::dispatch() while the worker is in BLPOP"
step dispatch class=ProbeJob now=$T0
wait_bg "$W"
dump_state "f3: done"

# ---------------------------------------------------------------- (g) size
case_begin g "Queue::size()"
step dispatch class=ProbeJob now=$T0
step dispatch class=ProbeJob now=$T0
step later class=ProbeJob delay=60 now=$T0
label "Queue::pop() (reserve one, not run)"
step pop now=$T0
label "Queue::size()"
step size now=$T0
dump_state "g"
label "RedisQueue::clear('default') (queue:clear)"
step clear now=$T0
dump_state "g: cleared"

# ---------------------------------------------------------------- (h) timeout
case_begin h1 "daemon --timeout=1, job runs 30 s, attempt 1 of 2 (not last): real pcntl_alarm"
export PROBE_BEHAVIOUR="run:30"
label "ProbeTimeoutJob::dispatch() (tries=2)"
step dispatch class=ProbeTimeoutJob now=$T0
label "daemon timeout=1 at T0 (SIGALRM after 1 s real time)"
step daemon timeout=1 now=$T0
dump_state "h1: worker killed"
rc ECHO "case:h2"         # no FLUSHALL: (h2) continues (h1)
CASE=h2
echo "== case h2: (continues h1) restarted daemon at T0+90, attempt 2 of 2 (last) times out" >>"$OUT/steps.log"
label "daemon timeout=1 at T0+90"
step daemon timeout=1 now=$((T0 + 90))
dump_state "h2: worker killed after failing the job"

case_begin h3 "worker killed from outside (SIGKILL) on --tries=1, re-popped after retry_after"
export PROBE_BEHAVIOUR="run:30"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "daemon (defaults, timeout 60) at T0, killed with SIGKILL while in handle()"
step_bg daemon now=$T0
W=$BG
wait_event handle
kill -KILL "$W"
wait_bg "$W"
dump_state "h3: worker killed"
label "runNextJob at T0+90 (defaults)"
step work-once now=$((T0 + 90))
dump_state "h3: failed on re-pop"

case_begin h4 "SIGALRM sent from outside to a daemon (timeout 60) on the last attempt (--tries=1)"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "daemon (defaults) at T0, kill -ALRM while in handle()"
step_bg daemon now=$T0
W=$BG
wait_event handle
kill -ALRM "$W"
wait_bg "$W"
dump_state "h4: worker killed"

case_begin h5 "--once (runNextJob) with --timeout=1 and a 3 s job: no alarm is armed"
export PROBE_BEHAVIOUR="run:3"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "runNextJob timeout=1"
step work-once timeout=1 now=$T0
dump_state "h5"
unset PROBE_BEHAVIOUR

case_begin h6 "idle daemon with --timeout=1 --sleep=3: the alarm is armed with no job too"
label "daemon timeout=1 sleep=3 on an empty queue"
step daemon timeout=1 sleep=3 now=$T0

# ---------------------------------------------------------------- (q) several queues
case_begin q "--queue=high,default: pop tries each queue in order"
label "ProbeJob::dispatch() (queue default)"
step dispatch class=ProbeJob now=$T0
label "runNextJob queue=high,default"
step work-once queue=high,default now=$T0

# ---------------------------------------------------------------- (r) retry_after null
case_begin r "queue config retry_after => null (RedisConnector turns it into 60)"
label "ProbeJob::dispatch()"
step dispatch class=ProbeJob now=$T0
label "runNextJob with retry_after=null"
step work-once retry_after=null now=$T0

# ---------------------------------------------------------------- (z) connect with a password and database 3
case_begin z "connect-time commands with a password and database 3"
label "Queue::size() with password=probe-secret db=3 (CONFIG SET requirepass first; CONFIG is not shown by MONITOR)"
rc CONFIG SET requirepass probe-secret
step size password=probe-secret db=3 now=$T0
# harness: remove the password again (this AUTH is the harness's, last line of the section)
redis-cli -p "$PORT" -a probe-secret --no-auth-warning CONFIG SET requirepass "" >/dev/null

rc ECHO end
for _ in $(seq 50); do grep -q '"ECHO" "end"' "$OUT/monitor.raw.txt" && break; sleep 0.1; done
kill "$MON_PID"; wait "$MON_PID" 2>/dev/null || true; MON_PID=
redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
wait "$RS_PID" 2>/dev/null || true; RS_PID=

# ---------------------------------------------------------------- split + abbreviate
perl "$HERE/split-monitor.pl" "$OUT"
echo "captures written to $OUT"
