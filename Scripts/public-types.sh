#!/usr/bin/env bash
# Counts the public types (struct, class, enum, protocol, actor; nested ones included) declared in
# each folder of Sources/, and in all. Run from anywhere; pass a git revision to count that
# revision instead of the work tree: Scripts/public-types.sh a0af6f3
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='^\s*public (final |indirect )*(struct|class|enum|protocol|actor) '
if [[ $# -gt 0 ]]; then
    git grep -cE "$pattern" "$1" -- 'Sources/*.swift' | sed "s#^$1:##"
else
    grep -rcE "$pattern" --include='*.swift' Sources
fi | awk -F: '$2 > 0 { n = split($1, parts, "/"); dir = parts[1]; for (i = 2; i < n; i++) dir = dir "/" parts[i]; count[dir] += $2; total[parts[2]] += $2 }
    END { for (d in count) printf "%4d  %s\n", count[d], d; for (t in total) printf "%4d  %s (all)\n", total[t], t }' | sort -k2
