#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of Fuzz/ with the fuzzer and address
# sanitizers, runs each for a bounded time, and prints per target the CPU time,
# executions and crashes, then a summary line. Exits 1 if any target crashed
# (or leaked, ran out of memory or timed out on an input). See docs/fuzzing.md.
#
#   FUZZ_SECONDS  wall-clock seconds per target (default 60)
#   FUZZ_TARGETS  which targets (default: config jpeg png webp gif heif heifdiff evemu video)
#   FUZZ_MERGE=1  afterwards, merge the inputs that found new coverage into the
#                 committed corpus Fuzz/Corpus/<target> (-merge=1 adds only
#                 inputs that add coverage). Off by default: the committed corpus
#                 changes only when someone asks for it and commits the result.
#
# Each run fuzzes a scratch copy of the corpus in .build-fuzz/run/<target>/,
# so the committed seeds never churn. Crash reproducers land in
# .build-fuzz/run/<target>/artifacts/ and are listed at the end.
set -uo pipefail
# Swift's own crash backtracer reads memory ASan reports as a wild read, which
# hides the real trap; libFuzzer and ASan print the stack instead.
export SWIFT_BACKTRACE=enable=no
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-config jpeg png webp gif heif heifdiff evemu video}
SCRATCH=.build-fuzz
# Leaks inside system libraries, each explained in the file (docs/fuzzing.md).
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
RUN=$SCRATCH/run

binary_of() {
    case $1 in
        config) echo FuzzConfig ;; jpeg) echo FuzzJPEG ;; png) echo FuzzPNG ;; webp) echo FuzzWebP ;; gif) echo FuzzGIF ;; heif) echo FuzzHEIF ;;
        heifdiff) echo FuzzHEIFDifferential ;; evemu) echo FuzzEvemu ;; video) echo FuzzVideo ;;
        *) echo "unknown fuzz target: $1 (config, jpeg, png, webp, gif, heif, heifdiff, evemu, video)" >&2; exit 2 ;;
    esac
}
for target in $TARGETS; do binary_of "$target" >/dev/null || exit 2; done

echo "== building the fuzz targets (release, -sanitize=fuzzer,address)"
build_start=$(date +%s.%N)
# -parse-as-library: no top-level code, so libFuzzer's main is the entry point.
# Only the targets asked for (--product each), so one target's build never holds up another's run.
for target in $TARGETS; do
    product=$(binary_of "$target")
    "$SWIFT" build --package-path Fuzz --scratch-path "$SCRATCH" -c release --product "$product" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library || exit 1
done
build_end=$(date +%s.%N)
build_seconds=$(awk -v a="$build_start" -v b="$build_end" 'BEGIN { printf "%.1f", b - a }')
echo "build: ${build_seconds} s wall"
bin=$(cd "$SCRATCH/release" && pwd)

total_execs=0
total_crashes=0
summary=()
for target in $TARGETS; do
    name=$(binary_of "$target")
    dir=$RUN/$target
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    cp Fuzz/Corpus/"$target"/* "$dir/corpus/"
    dict=()
    # The differential HEIF target takes the HEIF target's dictionary (box types and brands).
    dictionary=$target; [ "$target" = heifdiff ] && dictionary=heif
    [ -f Fuzz/Dictionaries/$dictionary.dict ] && dict=(-dict=Fuzz/Dictionaries/$dictionary.dict)
    echo "== $target ($name): ${SECONDS_PER_TARGET} s from $(ls "$dir/corpus" | wc -l) seeds"
    # -timeout: an input taking over 10 s counts as a failure (a hang);
    # -rss_limit_mb: so does one making the process grow past 2 GB.
    # The HEIF targets' allocations come through libheif's C++ (and the
    # differential target's C shim), which keep no frame pointers: unwound
    # slowly, so that a leak's stack reaches the suppressed function
    # (heif_image_create) it starts in. Unwound fast, FuzzHEIF reported that
    # suppressed leak on avif-nclx-image-leak.avif in two runs of three.
    unwind=
    case $target in heif | heifdiff) unwind="fast_unwind_on_malloc=0" ;; esac
    /usr/bin/time -f "%U %S %e" -o "$dir/time" \
        env ASAN_OPTIONS="${unwind}${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$bin/$name" "$dir/corpus" "${dict[@]}" \
        -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$dir/artifacts/" >"$dir/log" 2>&1
    status=$?
    read -r user sys wall <"$dir/time" 2>/dev/null || { user=0; sys=0; wall=0; }
    # /usr/bin/time writes "Command exited with non-zero status N" first when it does.
    if [ "$(wc -l <"$dir/time")" -gt 1 ]; then read -r user sys wall < <(tail -1 "$dir/time"); fi
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$dir/log" | tail -1 | tr -d '#')
    [ -n "$execs" ] || execs=0
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
    added=$(sed -n 's/^stat::new_units_added: *//p' "$dir/log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$dir/log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2)
    crashes=$(find "$dir/artifacts" -name 'crash-*' | wc -l)
    others=$(find "$dir/artifacts" \( -name 'leak-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
    failed=$((crashes + others))
    echo "$target: cpu ${cpu} s (wall ${wall} s), executions ${execs} (${rate:-?}/s), coverage ${cov:-?}, new inputs ${added:-0}, peak RSS ${rss:-?} MB, crashes ${crashes}, leaks/ooms/timeouts ${others}"
    if [ "$failed" -gt 0 ] || { [ "$status" -ne 0 ] && [ "$execs" = 0 ]; }; then
        grep -m1 -E '^==[0-9]+==ERROR|Fatal error|SUMMARY' "$dir/log" | sed 's/^/  /'
        find "$dir/artifacts" -type f ! -name 'slow-unit-*' | sed 's/^/  reproducer: /'
        [ "$failed" -gt 0 ] || failed=1  # it did not even start: count it
        echo "  log: $dir/log"
    fi
    total_execs=$((total_execs + execs))
    total_crashes=$((total_crashes + failed))
    summary+=("$target ${execs}x/${cpu}s/${failed}")
    if [ "${FUZZ_MERGE:-0}" = 1 ] && [ "$failed" = 0 ]; then
        before=$(ls Fuzz/Corpus/"$target" | wc -l)
        "$bin/$name" -merge=1 -timeout=10 -rss_limit_mb=2048 Fuzz/Corpus/"$target" "$dir/corpus" >"$dir/merge.log" 2>&1
        echo "  merged into Fuzz/Corpus/$target: $before -> $(ls Fuzz/Corpus/"$target" | wc -l) files"
    fi
done

echo "fuzz summary: ${#summary[@]} targets, ${SECONDS_PER_TARGET} s each, build ${build_seconds} s; executions ${total_execs}; crashes ${total_crashes}  [${summary[*]}]"
[ "$total_crashes" -eq 0 ]
