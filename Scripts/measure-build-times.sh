#!/usr/bin/env bash
# Measures what a user waits for: the first debug build of a package that depends on one product of
# this repository, for each of the seven products, each in a fresh temporary package (tools 6.1,
# `.package(path: REPO)`, with `traits: [...]` for a product behind a package trait) with an empty
# .build (packages resolved as SwiftPM resolves them on this machine). For each: the packages resolved
# (Package.resolved's pins), the size of SwiftPM's clones (.build/repositories) and checkouts, the
# seconds of `swift package resolve` and of the first `swift build` after it, and the distinct
# `warning:` lines that build printed (how many of them in this repository's files). Then the
# repository's own first build: a fresh clone of REPO's HEAD commit (work-tree changes are not in it),
# `swift build --enable-all-traits` (every target, examples and snippets included; what
# `swift run Quickstart` and `swift test --enable-all-traits` start with). Prints a Markdown table (progress
# goes to stderr); the README's build-time note comes from here. One build at a time; expect 15 to 25
# minutes on 2 cores.
#
#     Scripts/measure-build-times.sh [REPO]
#
# REPO (or $FARADAY_REPO): the package to measure; default, the repository this script is in.
# SKIP_BUILD=1: resolve and measure the clones only, build nothing (the build columns say "skipped");
# a quick check of the script itself. ONLY="Faraday FaradayHAL": those products only, and not the
# repository's own build.
set -euo pipefail
source "$(dirname "$0")/consumer-package.sh" "$@"
skip_build="${SKIP_BUILD:-0}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

rows=()
# measure NAME TRAIT DIR SOURCES RESOLVE_FLAGS BUILD_FLAGS: resolves and builds the package in DIR and
# adds a row; SOURCES is the folder whose files count as this repository's in the warnings.
measure() {
    local name=$1 trait=$2 dir=$3 sources=$4 resolve_flags=$5 build_flags=$6 start resolve_s build_s warnings
    echo "$name: resolving" >&2
    start=$(date +%s)
    # shellcheck disable=SC2086
    (cd "$dir" && swift package $resolve_flags resolve > resolve.log 2>&1) || { cat "$dir/resolve.log"; exit 1; }
    resolve_s=$(($(date +%s) - start))
    local pins=0
    [[ -f "$dir/Package.resolved" ]] && pins=$(grep -c '"identity"' "$dir/Package.resolved" || true)
    local clones checkouts
    clones=$(du -sh "$dir/.build/repositories" 2>/dev/null | cut -f1 || true)
    checkouts=$(du -sh "$dir/.build/checkouts" 2>/dev/null | cut -f1 || true)
    if [[ "$skip_build" == 1 ]]; then
        build_s=skipped warnings=skipped
    else
        echo "$name: building" >&2
        start=$(date +%s)
        # shellcheck disable=SC2086
        (cd "$dir" && swift build $build_flags > build.log 2>&1) || { cat "$dir/build.log"; exit 1; }
        build_s=$(($(date +%s) - start))
        # A diagnostic's own line ("file:line:col: warning: ..."), not the source excerpt under it, once each.
        local all ours prefix
        prefix=$(printf '%s' "$sources" | sed 's/[].[^$*+?(){}|\\]/\\&/g')
        all=$({ grep -E '(^|: )warning: ' "$dir/build.log" || true; } | sort -u | wc -l)
        ours=$({ grep -E "^${prefix}/[^ ]+:[0-9]+:[0-9]+: warning: " "$dir/build.log" || true; } \
            | { grep -v "^${prefix}/\.build/" || true; } | sort -u | wc -l)
        warnings="$all ($ours in this repository)"
    fi
    rows+=("| $name | ${trait:-—} | $pins | ${clones:-0} | ${checkouts:-0} | $resolve_s | $build_s | $warnings |")
}

for entry in "${products[@]}"; do
    product=${entry%%:*} trait=${entry#*:}
    [[ -n "${ONLY:-}" && " $ONLY " != *" $product "* ]] && continue
    dir="$work/$product"
    make_consumer "$dir" "$repo" "$identity" "$product" "$trait"
    measure "$product" "$trait" "$dir" "$repo" "" ""
done

if [[ -z "${ONLY:-}" ]]; then
    git clone -q "$repo" "$work/repository"
    measure "this repository, every target" "all (--enable-all-traits)" "$work/repository" "$work/repository" \
        --enable-all-traits --enable-all-traits
fi

echo "| product | trait | packages resolved | clones (.build/repositories) | checkouts | resolve s | first debug build s | build warnings |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
