#!/usr/bin/env bash
# Issue 28's ground truth: Debian's Laravel 8.83 (phpredis' RedisCluster) against a local 3-master
# Redis Cluster, `redis-cli monitor` on every node. Writes, per case, what each node saw, with each
# client connection named c1, c2, ... in order of its first line on that node (ports elided).
#
#   bash conformance/laravel/cluster-probe.sh [OUTDIR]
#
# Needs: php-cli php-redis php-laravel-framework redis-server redis-tools perl. About 20 s.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE/captures-cluster}
mkdir -p "$OUT"
rm -f "$OUT"/*.txt "$OUT"/*.jsonl "$OUT"/*.log "$OUT"/*.tsv
DIR=$(mktemp -d /tmp/lqsim-cluster-nodes.XXXXXX)
T0=1700000000

free_port() { php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'; }
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$DIR"
}
trap cleanup EXIT

PORTS=()
for _ in 1 2 3; do
  # A cluster node also listens on port+10000 (the bus): pick ports whose bus port is free too.
  while :; do p=$(free_port); [ "$p" -lt 55000 ] && ! (echo >/dev/tcp/127.0.0.1/$((p + 10000))) 2>/dev/null && break; done
  redis-server --port "$p" --bind 127.0.0.1 --save "" --appendonly no --cluster-enabled yes \
    --cluster-config-file "$DIR/nodes-$p.conf" --dir "$DIR" >"$DIR/server-$p.log" 2>&1 &
  PIDS+=("$!")
  PORTS+=("$p")
done
for p in "${PORTS[@]}"; do for _ in $(seq 50); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.1; done; done
redis-cli --cluster create "${PORTS[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes >"$DIR/create.log"
for p in "${PORTS[@]}"; do
  for _ in $(seq 100); do redis-cli -p "$p" CLUSTER INFO | grep -q 'cluster_state:ok' && break; sleep 0.1; done
done

# node1.. by lowest slot (as src/redis/cluster-nodes.ts names them)
mapfile -t NODES < <(redis-cli -p "${PORTS[0]}" CLUSTER SLOTS | perl -e '
  my @l = map { chomp; $_ } <STDIN>; my %low;
  for (my $i = 0; $i + 3 < @l; $i++) {
    if ($l[$i] =~ /^\d+$/ && $l[$i+1] =~ /^\d+$/ && $l[$i+2] =~ /^127\.0\.0\.1$/ && $l[$i+3] =~ /^\d+$/) {
      $low{$l[$i+3]} = $l[$i] if !defined $low{$l[$i+3]} || $l[$i] < $low{$l[$i+3]}; $i += 3;
    }
  }
  print "$_\n" for sort { $low{$a} <=> $low{$b} } keys %low;')
SEED=127.0.0.1:${NODES[0]}
{
  echo "redis-server: $(redis-server --version)"
  echo "php $(php -r 'echo PHP_VERSION;') phpredis $(php -r 'echo phpversion("redis");')"
  i=1; for p in "${NODES[@]}"; do echo "node$i: port $p"; i=$((i + 1)); done
  for k in queues:default 'queues:{default}' 'laravel_database_queues:{default}' laravel_database_queues:default; do
    for s in '' ':notify' ':delayed' ':reserved'; do echo "slot $k$s: $(redis-cli -p "${NODES[0]}" CLUSTER KEYSLOT "$k$s")"; done
  done
} >"$OUT/versions.txt"

i=1
for p in "${NODES[@]}"; do
  redis-cli -p "$p" MONITOR >"$OUT/monitor.node$i.txt" &
  PIDS+=("$!")
  i=$((i + 1))
done
sleep 0.3

CASE=
case_begin() {
  CASE=$1
  for p in "${NODES[@]}"; do redis-cli -p "$p" FLUSHALL >/dev/null; redis-cli -p "$p" ECHO "case:$CASE" >/dev/null; done
  echo "== case $CASE: $2" >>"$OUT/steps.log"
}
step() {
  local st=0
  PROBE_CASE=$CASE PROBE_LOG="$OUT/events.jsonl" timeout 60 php "$HERE/cluster-probe.php" "$1" seed="$SEED" now="$T0" "${@:2}" 2>>"$OUT/php-stderr.log" || st=$?
  echo "   php cluster-probe.php $* -> exit $st" >>"$OUT/steps.log"
}

case_begin connect "new RedisCluster only (RedisManager::connection())"
step connect
case_begin plain-dispatch "dispatch to 'default', HandleExceptions installed"
step dispatch
case_begin plain-dispatch-nohandler "dispatch to 'default', no error handler (PHP warning)"
step dispatch handler=0
case_begin plain-work-once "queue:work --once on 'default'"
step work-once
case_begin plain-daemon "queue:work on 'default' (two loops)"
step daemon loops=3
case_begin plain-daemon-nohandler "queue:work on 'default' without the error handler (two loops)"
step daemon loops=2 handler=0
case_begin plain-later "delayed dispatch to 'default' (one key: ZADD)"
step dispatch delay=10
case_begin plain-noprefix "dispatch to 'default' without a prefix"
step dispatch prefix=
case_begin tag-flow "'{default}': dispatch, delayed dispatch, pop+delete, dispatch, pop+release (throw), pop at T0+20 (migrate)"
step dispatch queue={default}
step dispatch queue={default} delay=10
step work-once queue={default}
step dispatch queue={default}
step work-once queue={default} behaviour=throw:boom
step work-once queue={default} now=$((T0 + 20))
case_begin tag-block-for "'{default}' block_for=1: pop of an empty queue, then a job"
step work-once queue={default} block_for=1
step dispatch queue={default}
step work-once queue={default} block_for=1
case_begin tag-noprefix "'{default}' without a prefix: dispatch, pop"
step dispatch queue={default} prefix=
step work-once queue={default} prefix=
case_begin name-option "Laravel's name option on the cluster: dispatch to '{default}'"
step dispatch queue={default} name=lqsim-probe
case_begin name-option-nohandler "the name option without the error handler: dispatch to '{default}'"
step dispatch queue={default} name=lqsim-probe handler=0
case_begin setname "CLIENT SETNAME on each master, then dispatch to '{default}'"
step dispatch queue={default} setname=1
case_begin client-list "CLIENT LIST on every master after RedisCluster's constructor"
step client-list
sleep 0.3
for p in "${NODES[@]}"; do redis-cli -p "$p" ECHO "case:end" >/dev/null; done
sleep 0.3

# Per case and node: the lines, the client address replaced by c1, c2, ... (own redis-cli lines dropped).
i=1
for p in "${NODES[@]}"; do
  perl -ne '
    BEGIN { $n = shift @ARGV; }
    if (/"ECHO" "case:([^"]+)"/) { $case = $1; %c = (); $k = 0; next; }
    next unless defined $case && $case ne "end";
    next if /"FLUSHALL"/;
    next unless /^\S+ \[(\d+) (?:lua|([\d.:]+))\] (.*)$/;
    my ($db, $addr, $rest) = ($1, $2, $3);
    my $who = defined $addr ? ($c{$addr} //= "c" . ++$k) : "lua";
    # Shortened: a script by its first line, a payload by its uuid (the raw file keeps both whole).
    $rest =~ s{"((?:[^"\\]|\\.)*)"}{ my $a = $1;
      $a =~ /^-- (.*?)\\n/ ? "\"<script: $1>\"" : $a =~ /^\{\\"uuid\\":\\"(\w{8})/ ? "<payload $1>" : "\"$a\"" }ge;
    print "$case\t$n\t[$db $who] $rest\n";
  ' "node$i" "$OUT/monitor.node$i.txt" >>"$OUT/by-node.tsv"
  i=$((i + 1))
done
perl -F'\t' -ane 'push @{$h{$F[0]}{$F[1]}}, $F[2]; push @o, $F[0] unless $s{$F[0]}++;
  END { for $c (@o) { print "== $c\n"; for $n (sort keys %{$h{$c}}) { print "  $n:\n"; print "    $_" for @{$h{$c}{$n}} } } }' \
  "$OUT/by-node.tsv" >"$OUT/by-case.txt"
rm -f "$OUT/by-node.tsv"
echo "$OUT"
