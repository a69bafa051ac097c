#!/usr/bin/env bash
# Checks, without building anything, which packages a user's package resolves when it depends on one
# product of this repository. For each product, a fresh temporary consumer package (tools 6.1,
# `.package(path: REPO)`, plus `traits: [...]` for a product behind a package trait) runs
# `swift package resolve`; its pins (Package.resolved, cross-checked with .build/checkouts and
# .build/repositories) are compared with what Package.swift says the product needs. Fails (exit 1) when
#   - the consumer of `Faraday` alone resolves anything but swift-http-types and swift-log (at most 3
#     packages in its graph, this repository included), or SwiftPM prints a `warning:` while resolving it;
#   - any product's consumer resolves a package that the product's own targets do not need with its
#     trait on, nor a package they need depends on: FaradayXML resolving swift-nio, say (a package that
#     Package.swift names only under another trait, or unguarded in another product's target).
# Prints a Markdown table: product | trait | packages resolved | names. Runs one `swift package` at a time;
# about half a minute (packages come from SwiftPM's cache after the first run).
#
#     Scripts/check-package-graph.sh [REPO]
#
# REPO (or $FARADAY_REPO): the package to check; default, the repository this script is in.
set -euo pipefail
source "$(dirname "$0")/consumer-package.sh" "$@"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The manifest as JSON; the scratch path keeps SwiftPM out of the repository's own .build.
swift package --package-path "$repo" --scratch-path "$work/dump" dump-package > "$work/manifest.json" 2> "$work/dump.log" \
    || { cat "$work/dump.log"; echo "check-package-graph: cannot read $repo/Package.swift"; exit 1; }

for entry in "${products[@]}"; do
    product=${entry%%:*} trait=${entry#*:}
    dir="$work/consumers/$product"
    make_consumer "$dir" "$repo" "$identity" "$product" "$trait"
    # For Faraday alone, manifests are compiled afresh (a fresh local cache): from SwiftPM's shared
    # cache, a manifest's compiler warnings would not be printed again.
    cache=shared
    [[ "$product" == Faraday ]] && cache=local
    if ! (cd "$dir" && swift package --manifest-cache "$cache" resolve > resolve.log 2>&1 \
        && swift package show-dependencies --format json > dependencies.json 2>> resolve.log); then
        cat "$dir/resolve.log"
        echo "check-package-graph: resolving a consumer of $product${trait:+ (trait $trait)} failed; see above"
        exit 1
    fi
done

python3 - "$work" "$identity" "${products[@]}" <<'PYTHON'
import json, os, re, sys

work, identity, entries = sys.argv[1], sys.argv[2], sys.argv[3:]
core_allowed = {"swift-http-types", "swift-log"}
core_max = 3  # packages in the Faraday-only consumer's graph, this repository included

manifest = json.load(open(f"{work}/manifest.json"))
targets = {t["name"]: t for t in manifest["targets"]}
products = {p["name"]: p["targets"] for p in manifest["products"]}
implied = {t["name"]: t.get("enabledTraits", []) for t in manifest.get("traits", [])}

def enabled(trait):
    """The trait and every trait it enables."""
    out, todo = set(), [trait] if trait else []
    while todo:
        t = todo.pop()
        if t not in out:
            out.add(t)
            todo += implied.get(t, [])
    return out

def references(target_names):
    """(package, traits of its condition or None) for each product dependency of these targets and the
    targets they depend on (any condition), as identities (lowercased package names)."""
    seen, todo, out = set(), list(target_names), []
    while todo:
        name = todo.pop()
        if name in seen or name not in targets:
            continue
        seen.add(name)
        for dep in targets[name]["dependencies"]:
            kind, args = next(iter(dep.items()))
            condition = args[-1] if isinstance(args[-1], dict) else None
            traits = set(condition["traits"]) if condition and condition.get("traits") else None
            if kind == "product":
                out.append((args[1].lower(), traits))
            else:  # byName / target: a target of this package (a byName naming a product is not used here)
                todo.append(args[0])
    return out

# The traits that guard each package in Package.swift, and the products whose targets name it unguarded.
guards, unguarded_in = {}, {}
for product_name, product_targets in products.items():
    for package, traits in references(product_targets):
        if traits:
            guards.setdefault(package, set()).update(traits)
        else:
            unguarded_in.setdefault(package, set()).add(product_name)
core = {package for package, traits in references(products["Faraday"]) if traits is None}

def tree_closure(node, wanted):
    """Identities of the children of node in `wanted`, and everything below them."""
    out = set()
    def walk(n):
        if n["identity"] not in out:
            out.add(n["identity"])
            for child in n["dependencies"]:
                walk(child)
    for child in node["dependencies"]:
        if child["identity"] in wanted:
            walk(child)
    return out

def describe(package):
    why = []
    if package in guards:
        why.append("guarded by trait " + ", ".join(sorted(guards[package])))
    if package in unguarded_in:
        why.append("unguarded in " + ", ".join(sorted(unguarded_in[package])))
    return f"{package} ({'; '.join(why) or 'a dependency of such a package'})"

def find(node, ident):
    if node["identity"] == ident:
        return node
    for child in node["dependencies"]:
        found = find(child, ident)
        if found:
            return found
    return None

rows, problems, notes = [], [], []
for entry in entries:
    product, trait = entry.split(":", 1)
    consumer = f"{work}/consumers/{product}"
    pins = {p["identity"] for p in json.load(open(f"{consumer}/Package.resolved"))["pins"]} \
        if os.path.exists(f"{consumer}/Package.resolved") else set()
    def listing(sub, strip_hash=False):
        path = f"{consumer}/.build/{sub}"
        names = os.listdir(path) if os.path.isdir(path) else []
        return {(re.sub(r"-[0-9a-f]{8}$", "", n) if strip_hash else n).lower() for n in names if not n.startswith(".")}
    cloned = listing("checkouts") | listing("repositories", strip_hash=True)
    resolved = pins | cloned
    if cloned - pins:
        problems.append(f"{product}: cloned but not pinned: {', '.join(sorted(cloned - pins))}")

    traits_on = enabled(trait)
    needed = {package for package, traits in references(products[product])
              if traits is None or traits & traits_on}
    # A package that Package.swift guards only by traits that are off belongs to another trait, even when
    # this product's targets name it unguarded (the core's own packages aside).
    foreign = {p for p in needed if p in guards and not guards[p] & traits_on and p not in core}
    root = find(json.load(open(f"{consumer}/dependencies.json")), identity)
    allowed = tree_closure(root, needed - foreign) if root else set()
    extra = resolved - allowed
    if extra:
        problems.append(f"{product}{' with trait ' + trait if trait else ''} resolves packages it should not: "
                        + "; ".join(describe(p) for p in sorted(extra)))

    # SwiftPM's own lines, and a manifest's compiler diagnostics ("path:line:col: warning:"), once each.
    warnings = sorted({l.strip() for l in open(f"{consumer}/resolve.log") if re.search(r"(^|: )warning:", l)})
    if product == "Faraday":
        if resolved - core_allowed or len(resolved) + 1 > core_max:
            problems.append(f"Faraday alone resolves more than {', '.join(sorted(core_allowed))}: "
                            f"extra {', '.join(sorted(resolved - core_allowed)) or '(none)'}; {len(resolved) + 1} packages in its graph (at most {core_max})")
        if warnings:
            problems.append("SwiftPM warned while resolving Faraday alone:\n  " + "\n  ".join(warnings))
        notes.append(f"SwiftPM warnings while resolving Faraday alone: {len(warnings)}")
    rows.append((product, trait or "—", str(len(pins)), ", ".join(sorted(pins))))

print("| product | trait | packages resolved | names |")
print("|---|---|---|---|")
for row in rows:
    print("| " + " | ".join(row) + " |")
print()
for note in notes:
    print(note)
if problems:
    print()
    for problem in problems:
        print("FAIL: " + problem)
    if any("resolves" in problem for problem in problems):
        print("Guard each dependency of a product behind its trait in Package.swift: "
              ".product(name: ..., package: ..., condition: .when(traits: [\"TRAIT\"])).")
    sys.exit(1)
print("package graph: each product resolves only what it needs")
PYTHON
