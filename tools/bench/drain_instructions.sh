#!/usr/bin/env bash
# Instructions per record of the collector's drain into analysis, counted by callgrind (exact and
# repeatable, unlike a timing on a shared machine): runs brrr_drain_benchmark's DrainIntoAnalysis
# under valgrind and divides SegmentReader::Drain's inclusive instructions by the records decoded
# (the benchmark's records_drained, warm-up included). Prints those figures and where the callgrind
# output is, for `callgrind_annotate --tree=calling --inclusive=yes FILE`. About a minute.
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
  --benchmark_filter='DrainIntoAnalysis$' --benchmark_min_time=0.01 --benchmark_format=json \
  >"$out/benchmark.json" 2>"$out/valgrind.log" ||
  { echo "drain_instructions: valgrind failed; see $out/valgrind.log" >&2; exit 1; }
callgrind_annotate --tree=calling --inclusive=yes "$out/callgrind.out" >"$out/tree.txt" 2>/dev/null
drain=$(grep -m1 '\*  .*SegmentReader::Drain(brrr::EventSink&)' "$out/tree.txt" |
  awk '{gsub(",", "", $1); print $1}')
# Every record Drain decoded, warm-up included (the benchmark's counter: with LTO the decoders are
# inlined and callgrind has no call count of them).
records=$(python3 -c 'import json, sys
print(int(json.load(open(sys.argv[1]))["benchmarks"][0]["records_drained"]))' "$out/benchmark.json")
if [[ -z "$drain" || -z "$records" || "$records" == 0 ]]; then
  echo "drain_instructions: could not find the drain's figures in $out/tree.txt, $out/benchmark.json" >&2
  exit 1
fi
echo "drain instructions: $drain for $records records: $((drain / records)) per record"
echo "callgrind output: $out/callgrind.out"
