#!/usr/bin/env bash
# Instructions per record of the collector's drain into analysis, counted by callgrind (exact and
# repeatable, unlike a timing on a shared machine): runs brrr_drain_benchmark's DrainIntoAnalysis
# under valgrind and divides SegmentReader::Drain's inclusive instructions by the records decoded
# (calls of DecodeHost and DecodeDevice). Prints those figures and where the callgrind output is,
# for `callgrind_annotate --tree=calling --inclusive=yes FILE`. About a minute.
# Usage: tools/bench/drain_instructions.sh [build-dir]   (default build/default; needs valgrind)
set -euo pipefail
build="${1:-build/default}"
bench="$build/collector/ingest/brrr_drain_benchmark"
[[ -x "$bench" ]] || { echo "drain_instructions: missing $bench (build the default preset)" >&2; exit 1; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  { echo "drain_instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
out=$(mktemp -d)
echo "drain_instructions: running the benchmark under callgrind (about a minute)..." >&2
valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$bench" \
  --benchmark_filter=DrainIntoAnalysis --benchmark_min_time=0.01 >/dev/null 2>"$out/valgrind.log" ||
  { echo "drain_instructions: valgrind failed; see $out/valgrind.log" >&2; exit 1; }
callgrind_annotate --tree=calling --inclusive=yes "$out/callgrind.out" >"$out/tree.txt" 2>/dev/null
calls() {  # the call count callgrind gives a callee: "(1,234x)"
  grep -m1 ">   .*$1(" "$out/tree.txt" | sed -E 's/.*\(([0-9,]+)x\).*/\1/' | tr -d ,
}
drain=$(grep -m1 '\*  .*SegmentReader::Drain(brrr::EventSink&)' "$out/tree.txt" |
  awk '{gsub(",", "", $1); print $1}')
host=$(calls DecodeHost)
device=$(calls DecodeDevice)
if [[ -z "$drain" || -z "$host" || -z "$device" ]]; then
  echo "drain_instructions: could not find the drain's figures in $out/tree.txt" >&2
  exit 1
fi
echo "drain instructions: $drain for $host host and $device device records:" \
  "$((drain / (host + device))) per record"
echo "callgrind output: $out/callgrind.out"
