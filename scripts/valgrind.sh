#!/usr/bin/env bash
# Runs the core and runtime test binaries (and the workspace's soundness tests) under
# valgrind memcheck: any invalid read or write, use of uninitialised memory or invalid free
# fails the run. CI-sized: the heavy random tests run with fewer iterations, and the
# per-instruction suites that only repeat the same code paths over more types are left out.
#
#   scripts/valgrind.sh            # memcheck (default)
#   TOOL=helgrind scripts/valgrind.sh soundness   # another valgrind tool, on some binaries
#
# Arguments, if any, select the binaries by name (e.g. `soundness data_copy`).
set -euo pipefail
cd "$(dirname "$0")/.."

TOOL=${TOOL:-memcheck}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }

# The test binaries, built once (test profile: optimised, with debug info).
build() {
    cargo test --no-run --message-format=json "$@" 2>/dev/null |
        grep -o '"executable":"[^"]*"' | sed 's/"executable":"//; s/"$//'
}
mapfile -t BINS < <(
    build -p ascend-core --lib --test pipe_queue --test data_copy --test vector_engine --test vector_binary \
        --test mask_state --test gm_api --test fuzz_soundness
    build -p ascend-runtime --lib --test launch --test gm --test hook --test atomics
    build -p ascend-workspace --test soundness
)

if [ "$#" -gt 0 ]; then
    sel=()
    for b in "${BINS[@]}"; do
        for want in "$@"; do
            case "$(basename "$b")" in "$want"-*) sel+=("$b") ;; esac
        done
    done
    BINS=("${sel[@]}")
fi

case "$TOOL" in
    memcheck) ARGS=(--tool=memcheck --error-exitcode=99 --errors-for-leak-kinds=none) ;;
    *) ARGS=(--tool="$TOOL" --error-exitcode=99) ;;
esac

export FUZZ_ITERS=${FUZZ_ITERS:-400}
LOGS=$(mktemp -d)
status=0
start=$SECONDS
for b in "${BINS[@]}"; do
    name=$(basename "$b")
    t0=$SECONDS
    # One test thread: valgrind serialises threads anyway, and the output stays readable.
    if valgrind "${ARGS[@]}" --quiet "$b" --test-threads=1 -q >"$LOGS/$name.log" 2>&1; then
        echo "ok    $name ($((SECONDS - t0)) s)"
    else
        echo "FAIL  $name ($((SECONDS - t0)) s): see $LOGS/$name.log"
        tail -30 "$LOGS/$name.log"
        status=1
    fi
done
echo "valgrind $TOOL: ${#BINS[@]} binaries in $((SECONDS - start)) s"
exit $status
