#!/usr/bin/env bash
# Counts the concepts a snippet meets: the types and protocols of Faraday and HTTPTypes that its
# code names, conforms to, or uses a member, initializer or requirement of (members are grouped by
# their type: `env.request` meets Env, `.named(…)` meets HTTPField.Name). The snippet is a slice
# of a file in Snippets/, read as DocC reads it (`Scripts/expand-snippets.py`'s parser); `--with
# TEXT` adds the file's other lines that contain TEXT (how the snippet is added to a stack). The
# compiler says what each name refers to: the file is type-checked (`swiftc -dump-ast`) against
# the modules of this package's debug build, which must exist (`swift build --enable-all-traits`).
# Prints "N concepts: …"; --check FILE fails unless FILE states the same "N concepts" and names
# each of them.
#
#     Scripts/count-concepts.sh SNIPPET_FILE REGION [--with TEXT] [--check FILE]
set -euo pipefail
usage="usage: $0 SNIPPET_FILE REGION [--with TEXT] [--check FILE]"
[[ $# -ge 2 ]] || { echo "$usage"; exit 2; }
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
file="$(absolute "$1")" region="$2"; shift 2
with="" check=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --with) with="$2"; shift ;;
        --check) check="$(absolute "$2")"; shift ;;
        *) echo "$usage"; exit 2 ;;
    esac
    shift
done
cd "$(dirname "$0")/.."
modules="$(swift build --show-bin-path)/Modules"
[[ -f "$modules/Faraday.swiftmodule" || -d "$modules/Faraday.swiftmodule" ]] \
    || { echo "count-concepts: no debug build of Faraday in $modules (swift build --enable-all-traits)"; exit 1; }
[[ -d .build/checkouts/swift-http-types/Sources/HTTPTypes ]] \
    || { echo "count-concepts: no checkout of swift-http-types in .build/checkouts"; exit 1; }
ast="$(mktemp)" errors="$(mktemp)"
trap 'rm -f "$ast" "$errors"' EXIT
swiftc -dump-ast -swift-version 6 -module-name Snippet -I "$modules" -I Sources/CZlib "$file" > "$ast" 2> "$errors" \
    || { cat "$errors"; echo "count-concepts: $file does not type-check"; exit 1; }
result="$(python3 - "$file" "$region" "$with" "$ast" <<'PYTHON'
import importlib.util, os, re, sys
path, region, with_text, ast_path = sys.argv[1:]
# The slice's lines as DocC shows them (expand-snippets.py's parser), and the lines elsewhere in
# the file that hold `with_text`.
spec = importlib.util.spec_from_file_location("expand_snippets", "Scripts/expand-snippets.py")
snippets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(snippets)
source = open(path).read()
sliced = snippets.Snippet(source, path).line_numbers(region)
if not sliced:
    sys.exit(f"count-concepts: no region {region} in {path}")
wanted = set(sliced)
if with_text:
    wanted |= {number for number, line in enumerate(source.split("\n"), 1) if with_text in line}
# The public top-level types of Faraday and HTTPTypes, by name (`@frozen public enum …` too), and
# the nested ones a snippet may meet, by their full name: a nested name alone (`Value`, `Kind`)
# is ambiguous, and `String.Encoding` is not HTTPTypes' `Encoding`.
declared = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*public (?:final |indirect )*(?:struct|class|enum|protocol|actor) (\w+)")
public = set()
for root in ("Sources/Faraday", ".build/checkouts/swift-http-types/Sources/HTTPTypes"):
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".swift"):
                for line in open(os.path.join(folder, name)):
                    if found := declared.match(line):
                        public.add(found.group(1))
nested = {"HTTPField.Name", "HTTPResponse.Status", "HTTPRequest.Method", "FaradayError.Code", "Env.Phase"}
by_last = {name.split(".")[-1]: name for name in nested}
concepts = set()
def note_written(name):
    """A type as the AST writes it: `Env`, `HTTPField.Name`, `HTTPField.Name.Type`."""
    parts = name.split(".")
    for length in range(len(parts), 1, -1):
        if ".".join(parts[:length]) in nested:
            concepts.add(".".join(parts[:length]))
            return
    if parts[0] in public:
        concepts.add(parts[0])
# A node's line: its location, else the start of its range.
where = re.compile(rf"(?:location=|range=\[)[^\s:]*{re.escape(os.path.basename(path))}:(\d+):")
for node in open(ast_path):
    found = where.search(node)
    if not found or int(found.group(1)) not in wanted:
        continue
    # A member, initializer or requirement of a type: `decl="Faraday.(file).Env.request@…"`; a
    # member of an extension of a nested type reads `decl="Faraday.(file).Name extension.named@…"`.
    # A type written out: `bind="Faraday.(file).App@…"`.
    for owner in re.findall(r'(?:decl|bind)="(?:Faraday|HTTPTypes)\.\(file\)\.(\w+)', node):
        if owner in public:
            concepts.add(owner)
        elif owner in by_last:
            concepts.add(by_last[owner])
    # Conformances and the types of what the snippet declares and uses (a parameter's `inout Env`).
    for text in re.findall(r'(?:inherits|interface_type|type)="([^"]*)"', node):
        for name in re.findall(r"\b[A-Z][\w.]*\w", text):
            note_written(name)
print(f"{len(concepts)} concepts: {', '.join(sorted(concepts))}")
PYTHON
)"
echo "$result"
if [[ -n "$check" ]]; then
    counted="${result%%:*}"
    grep -qwF "$counted" "$check" || { echo "count-concepts: $check does not say \"$counted\""; exit 1; }
    for name in $(tr -d ',' <<< "${result#*: }"); do
        grep -qF "$name" "$check" || { echo "count-concepts: $check does not name $name"; exit 1; }
    done
fi
