#!/usr/bin/env bash
# Fails when the core names a middleware type (one declared at the top level of a file under
# Middleware/): the files of Stack/, Env/, Body/, Response/, Connection/, Errors/, Concurrency/ and
# Progress/ in Sources/Faraday may name no type declared under Middleware/, so that any middleware
# can be removed or replaced without touching the core (the layering rule of the README's "Layout"
# section). Comments are not read; names inside string literals count (an error message that names
# a middleware couples the core to it as much as code does).
set -euo pipefail
cd "$(dirname "$0")/../Sources/Faraday"
core=(Stack Env Body Response Connection Errors Concurrency Progress)
mapfile -t types < <(grep -rhoE '^(public |package |internal |fileprivate |private )?(final )?(struct|class|enum|protocol|actor|typealias) +[A-Z][A-Za-z0-9]*' Middleware \
    | awk '{print $NF}' | sort -u)
found=0
for type in "${types[@]}"; do
    # Every line of the core that names the type as a word, comment lines and trailing comments left out.
    hits=$(grep -rnw --include='*.swift' "$type" "${core[@]}" | grep -vE '^[^:]+:[0-9]+:\s*//' \
        | sed -E 's#//[^"]*$##' | grep -w "$type" || true)
    if [[ -n "$hits" ]]; then
        echo "The core names the middleware type $type:"
        echo "$hits" | sed 's/^/  /'
        found=1
    fi
done
if [[ $found -ne 0 ]]; then
    echo "Move what belongs to a middleware into its folder (a typed key or an extension); see the README's Layout section."
    exit 1
fi
echo "core layering: ${#types[@]} middleware types, none named by ${core[*]}"
