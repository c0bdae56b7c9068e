#!/usr/bin/env bash
# Runs every libFuzzer harness for SECONDS each, JOBS at a time (default: one
# per CPU), each on its seeds (corpus/NAME) and past failures (regressions/NAME),
# then prints one row per harness: executions, exec/s, coverage (cov and ft of
# libFuzzer's last status line), corpus at the end, and the crashes, leaks,
# timeouts and out-of-memory inputs found, which are kept in OUT/found/.
#   tests/fuzz/run_all.sh SECONDS [JOBS [OUT]]
# The harnesses are taken from $FUZZ_BIN, else from beside this script (a copy
# made to run elsewhere), else from build-fuzz/tests/fuzz of the checkout
# (tests/fuzz/README.md builds them). OUT defaults to ./fuzz-out; the corpora
# grow in OUT/corpus/NAME, never in the seed folders.
set -euo pipefail

usage() {
    echo "usage: $0 SECONDS [JOBS [OUT]]" >&2
    exit 2
}
[ $# -ge 1 ] && [ $# -le 3 ] || usage
secs=$1
jobs=${2:-$(nproc)}
out=${3:-fuzz-out}
[[ $secs =~ ^[1-9][0-9]*$ && $jobs =~ ^[1-9][0-9]*$ ]] || usage

here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${FUZZ_BIN:-}" ]; then
    bin=$FUZZ_BIN
elif [ -x "$here/fuzz_decode" ]; then
    bin=$here
else
    bin=$here/../../build-fuzz/tests/fuzz
fi
# The largest input each harness is given: a chain is a command-line argument;
# images stay small enough that an execution takes milliseconds, yet hold
# several tiles, strips or chunks; an EXIF block or ICC profile of the size
# files carry.
declare -A max_len=([chain]=512 [decode]=16384 [jpeg]=16384 [tiff]=16384 [webp]=16384
                    [exif]=4096 [icc]=16384 [jpeg_gpu]=16384)
names=()
for exe in "$bin"/fuzz_*; do
    [ -f "$exe" ] && [ -x "$exe" ] || continue
    name=${exe##*/fuzz_}
    [ -d "$here/corpus/$name" ] || { echo "$0: no seeds for $exe at $here/corpus/$name" >&2; exit 1; }
    names+=("$name")
done
[ ${#names[@]} -gt 0 ] || { echo "$0: no fuzz_* harness in $bin" >&2; exit 1; }

mkdir -p "$out/found" "$out/logs"
out=$(cd "$out" && pwd)
# A leak or undefined behaviour is a failure, as in the suite (tests/sanitizers/).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# fuzz_jpeg_gpu opens a device: the Vulkan loader's and lavapipe's own leaks are left out as in
# the suite (tests/sanitizers/lsan.supp, where this script sits in the checkout).
if [ -z "${LSAN_OPTIONS:-}" ] && [ -f "$here/../sanitizers/lsan.supp" ]; then
    export LSAN_OPTIONS=suppressions=$here/../sanitizers/lsan.supp:print_suppressions=0
fi

# One harness for SECONDS: libFuzzer stops at the first failure, so it is
# started again on the grown corpus until the time is spent (at most 50
# times: an input that fails while the corpus loads would stop every start).
run_one() {
    local name=$1 corpus=$out/corpus/$1 log=$out/logs/$1.log
    local start=$SECONDS left starts=0 lines
    mkdir -p "$corpus"
    : >"$log"
    local dirs=("$corpus" "$here/corpus/$name")
    [ -d "$here/regressions/$name" ] && dirs+=("$here/regressions/$name")
    while left=$((secs - (SECONDS - start))) && [ $left -gt 0 ] && [ $starts -lt 50 ]; do
        starts=$((starts + 1))
        echo "=== start $starts, $left s left" >>"$log"
        lines=$(wc -l <"$log")
        "$bin/fuzz_$name" -max_total_time=$left -max_len=${max_len[$name]:-16384} \
            -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=20 -print_final_stats=1 \
            -artifact_prefix="$out/found/$name-" "${dirs[@]}" >>"$log" 2>&1 || true
        # (grep reads the whole tail: with -q it could exit first and, under pipefail, the
        # SIGPIPE of tail would end the restarts)
        tail -n +$((lines + 1)) "$log" | grep INITED >/dev/null || break # failed before fuzzing began
    done
    echo "=== fuzzed for $((SECONDS - start)) s" >>"$log"
}

pids=()
for name in "${names[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    run_one "$name" &
    pids+=($!)
done
wait "${pids[@]}" || true

# Sums over a harness's starts: executions; exec/s over the time fuzzed; the
# last status line's cov, ft and corpus (seeds and new inputs, as libFuzzer
# keeps them).
printf '%-12s %12s %8s %7s %7s %7s %7s %7s %9s %5s\n' harness runs exec/s cov ft corpus \
    crashes leaks timeouts ooms
status=0
for name in "${names[@]}"; do
    log=$out/logs/$name.log
    read -r runs time < <(awk '/^stat::number_of_executed_units:/ {r += $2}
        /^=== fuzzed for/ {t = $4} END {print r + 0, t + 0}' "$log")
    [ "$time" -gt 0 ] || time=1
    read -r cov ft corpus < <(awk '/ cov: [0-9]+ ft: [0-9]+/ {for (i = 1; i < NF; i++) {
            if ($i == "cov:") c = $(i + 1); if ($i == "ft:") f = $(i + 1);
            if ($i == "corp:") {split($(i + 1), n, "/"); k = n[1]}}}
        END {print c + 0, f + 0, k + 0}' "$log")
    count() { find "$out/found" -name "$name-$1-*" | wc -l; }
    crashes=$(count crash)
    leaks=$(count leak)
    timeouts=$(count timeout)
    ooms=$(count oom)
    printf '%-12s %12d %8d %7d %7d %7d %7d %7d %9d %5d\n' "fuzz_$name" "$runs" \
        $((runs / time)) "$cov" "$ft" "$corpus" "$crashes" "$leaks" "$timeouts" "$ooms"
    [ $((crashes + leaks + timeouts + ooms)) -eq 0 ] || status=1
    # a harness killed before libFuzzer printed anything (a signal at load) ran nothing
    [ "$runs" -gt 0 ] || { echo "fuzz_$name ran no input: see $log" >&2; status=1; }
done
echo "inputs found: $out/found/; logs: $out/logs/"
exit $status
