#!/usr/bin/env bash
# Runs test binaries under valgrind memcheck: any invalid read or write, use of uninitialised
# memory or invalid free fails the run (exit status 1).
#
#   scripts/valgrind.sh              # the full run: the core and runtime suites listed below,
#                                    # the soundness tests and the fuzz (400 random calls, 3
#                                    # calls of every public instruction)
#   scripts/valgrind.sh --ci         # the CI subset (.ci/run), a few minutes: the fuzz of every
#                                    # public instruction (1 call each, 100 random calls) and
#                                    # multi-core kernels (add_custom on 8 cores, sync_all, a
#                                    # deliberate GM race of 4 cores)
#   TOOL=helgrind scripts/valgrind.sh soundness    # another valgrind tool, on some runs
#
# Other arguments select runs by name (e.g. `soundness fuzz_soundness`). Valgrind must be
# installed (Debian/Ubuntu: `apt-get install valgrind`); without it the script says so and
# fails rather than installing anything. The binaries are built in the test profile (already
# built when `cargo test` ran first, as in .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

TOOL=${TOOL:-memcheck}
CI=0
if [ "${1:-}" = "--ci" ]; then
    CI=1
    shift
fi
command -v valgrind >/dev/null || {
    echo "valgrind is not installed: install it (apt-get install valgrind) or skip this step" >&2
    exit 1
}

# Every test executable, built as `cargo test --workspace` builds them (the same feature
# resolution, so nothing is rebuilt after that command), as cargo's JSON messages.
BUILT=$(cargo test --workspace --no-run --message-format=json 2>/dev/null) || {
    echo "cargo test --workspace --no-run failed" >&2
    exit 1
}

# The executable of one target: `exe <kind> <target name>` (kind `test` or `lib`).
exe() {
    local path
    path=$(grep -F "\"kind\":[\"$1\"]" <<<"$BUILT" | grep -F "\"name\":\"$2\"" \
        | grep -o '"executable":"[^"]*"' | sed 's/"executable":"//; s/"$//' | tail -1)
    [ -n "$path" ] || {
        echo "no $1 target named $2 among the workspace's test executables" >&2
        exit 1
    }
    echo "$path"
}

# A run: `name|executable|test filters (space-separated, empty: all)`.
RUNS=()
run() { RUNS+=("$1|$2|${3:-}"); }

FUZZ=$(exe test fuzz_soundness)
E2E=$(exe test e2e)
RUNTIME=$(exe test runtime)
if [ "$CI" = 1 ]; then
    export FUZZ_CASES=${FUZZ_CASES:-1} FUZZ_ITERS=${FUZZ_ITERS:-100}
    run fuzz_soundness "$FUZZ"
    run multi_core "$E2E" "kernels_e2e::add_custom_default_passes_the_vendor_check soundness::racing_cores_on_one_gm_element"
    run launch "$RUNTIME" "launch::every_core_writes_its_block_idx_in_every_mode launch::sync_all_three_times_completes"
else
    export FUZZ_CASES=${FUZZ_CASES:-3} FUZZ_ITERS=${FUZZ_ITERS:-400}
    run core_lib "$(exe lib ascend_core)"
    # The per-instruction suites only repeat the same code paths over more types: left out.
    run core "$(exe test core)" "pipe_queue:: data_copy:: vector_engine:: vector_binary:: mask_state:: gm_api::"
    run fuzz_soundness "$FUZZ"
    run runtime_lib "$(exe lib ascend_runtime)"
    run runtime "$RUNTIME" "launch:: gm:: atomics::"
    run hook "$(exe test hook)"
    run soundness "$E2E" "soundness::"
fi

if [ "$#" -gt 0 ]; then
    sel=()
    for r in "${RUNS[@]}"; do
        for want in "$@"; do
            [ "${r%%|*}" = "$want" ] && sel+=("$r")
        done
    done
    RUNS=("${sel[@]}")
fi

case "$TOOL" in
    memcheck) ARGS=(--tool=memcheck --error-exitcode=99 --errors-for-leak-kinds=none) ;;
    *) ARGS=(--tool="$TOOL" --error-exitcode=99) ;;
esac

LOGS=$(mktemp -d)
status=0
start=$SECONDS
for r in "${RUNS[@]}"; do
    IFS='|' read -r name bin filters <<<"$r"
    t0=$SECONDS
    # One test thread: valgrind serialises threads anyway, and the output stays readable.
    # shellcheck disable=SC2086 # the filters are separate words
    if valgrind "${ARGS[@]}" --quiet "$bin" --test-threads=1 -q $filters >"$LOGS/$name.log" 2>&1; then
        echo "ok    $name ($((SECONDS - t0)) s)"
    else
        echo "FAIL  $name ($((SECONDS - t0)) s): see $LOGS/$name.log"
        tail -30 "$LOGS/$name.log"
        status=1
    fi
done
echo "valgrind $TOOL: ${#RUNS[@]} runs in $((SECONDS - start)) s"
exit $status
