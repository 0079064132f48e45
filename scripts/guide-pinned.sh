#!/usr/bin/env bash
# The guide preset (matrix --preset guide) with each server row in its own JVM pinned to one CPU
# and the client in another JVM pinned to a second CPU, as 'efficiency' measures: one 'serve' and
# one 'matrix --target' per server row and protocol. Prints the steps' table (step, transport,
# protocol, server, client, calls, total s, calls/s, p50, p99, errors) and writes guide.csv.
#
# Usage: scripts/guide-pinned.sh
#   JAR=...         the bench jar (default: it/target/thrift-nio-bench.jar; ./mvnw -pl it -am package)
#   CALLS=N         sequential get_last_sale calls per step (default: 1000000)
#   SERVER_CPU=N    CPU of the servers (default: 1); CLIENT_CPU=N of the client (default: 0)
#   OUT=DIR         where each run's files and the merged guide.csv go (default: it/target/guide-pinned)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jar=${JAR:-$root/it/target/thrift-nio-bench.jar}
calls=${CALLS:-1000000}
server_cpu=${SERVER_CPU:-1}
client_cpu=${CLIENT_CPU:-0}
out=${OUT:-$root/it/target/guide-pinned}

if ! command -v taskset >/dev/null 2>&1; then
  echo "guide-pinned: no taskset (util-linux); run 'matrix --preset guide' in one JVM instead" >&2
  exit 2
fi
if [[ ! -f "$jar" ]]; then
  echo "guide-pinned: no bench jar at $jar (expected: ./mvnw -pl it -am package first)" >&2
  exit 2
fi
mkdir -p "$out"

# One server row under one protocol: serve pinned, then the guide's cells of that protocol.
step() {
  local server=$1 protocol=$2 transports=$3 clients=$4
  local name=${server//\//-}-$protocol
  local log=$out/$name.serve.log
  taskset -c "$server_cpu" java -jar "$jar" serve --server "$server" --protocol "$protocol" \
    --port 0 --transports "$transports" >"$log" 2>&1 &
  local pid=$!
  local port=""
  for _ in $(seq 1 600); do
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$log" | head -n1)
    [[ -n "$port" ]] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "guide-pinned: serve $server exited; see $log" >&2
      exit 1
    fi
    sleep 0.1
  done
  if [[ -z "$port" ]]; then
    kill "$pid"
    echo "guide-pinned: serve $server did not listen within 60 s; see $log" >&2
    exit 1
  fi
  taskset -c "$client_cpu" java -jar "$jar" matrix --preset guide --calls "$calls" \
    --target "127.0.0.1:$port" --target-server "$server" --protocols "$protocol" \
    --clients "$clients" --out "$out/$name" >"$out/$name.matrix.md" 2>"$out/$name.matrix.log" \
    || { kill "$pid"; echo "guide-pinned: matrix failed; see $out/$name.matrix.log" >&2; exit 1; }
  kill "$pid"
  wait "$pid" || true
  echo "guide-pinned: $server $protocol done" >&2
}

step thrift-servlet json http thttpclient
step netty/worker json framed,http thttpclient,tsocket
step grizzly/worker json framed,http thttpclient,tsocket
step thrift-threadpool json framed tsocket
step thrift-threadpool binary framed tsocket
step netty/worker binary framed tsocket
step grizzly/worker binary framed tsocket

# Merge: one guide.csv, steps in order (stable within a step: the order above).
{
  head -n1 "$out/thrift-servlet-json/guide.csv"
  for f in "$out"/*/guide.csv; do tail -n +2 "$f"; done | sort -s -t, -k1,1n
} >"$out/guide.csv"
awk -F, 'NR == 1 {
    print "| step | transport | protocol | server | client | calls | total s | calls/s | p50 us | p99 us | errors |"
    print "|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|"
    next
  }
  { printf "| %s | %s | %s | %s | %s | %d | %.1f | %.0f | %d | %d | %d |\n",
      $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 + $12 }' "$out/guide.csv"
