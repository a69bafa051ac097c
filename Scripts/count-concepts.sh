#!/usr/bin/env bash
# Counts the concepts a snippet meets: the types and protocols of Faraday and HTTPTypes that its
# code names, conforms to, or uses a member, initializer or requirement of (members are grouped by
# their type: `env.request` meets Env, `.named(…)` meets HTTPField.Name). The snippet is a region
# of a file in Snippets/ (`// snippet.NAME` to the next marker); `--with LINE` adds the lines of
# the file's other regions that contain LINE (how the snippet is added to a stack, say). The
# compiler says what each name refers to: the file is type-checked (`swiftc -dump-ast`) against
# the modules of this package's debug build, which must exist (`swift build --enable-all-traits`).
# Prints "N concepts: …"; --check FILE fails unless FILE states the same "N concepts".
#
#     Scripts/count-concepts.sh SNIPPET_FILE REGION [--with TEXT] [--check FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
file="$1" region="$2"; shift 2
with="" check=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --with) with="$2"; shift ;;
        --check) check="$2"; shift ;;
        *) echo "usage: $0 SNIPPET_FILE REGION [--with TEXT] [--check FILE]"; exit 2 ;;
    esac
    shift
done
modules="$(swift build --enable-all-traits --show-bin-path)/Modules"
[[ -d "$modules" ]] || { echo "count-concepts: no debug build at $modules"; exit 1; }
ast="$(mktemp)"
trap 'rm -f "$ast"' EXIT
swiftc -dump-ast -swift-version 6 -module-name Snippet -I "$modules" -I Sources/CZlib "$file" > "$ast" 2>/dev/null \
    || { echo "count-concepts: $file does not type-check"; exit 1; }
result="$(python3 - "$file" "$region" "$with" "$ast" <<'PYTHON'
import os, re, sys
path, region, with_text, ast_path = sys.argv[1:]
lines = open(path).read().splitlines()
# The lines of the region, and the lines elsewhere that hold `with_text`.
wanted, inside = set(), False
for number, line in enumerate(lines, 1):
    marker = re.match(r"\s*// snippet\.(\w+)", line)
    if marker:
        inside = marker.group(1) == region
        continue
    if inside or (with_text and with_text in line):
        wanted.add(number)
if not wanted:
    sys.exit(f"count-concepts: no region {region} in {path}")
# The public types of Faraday and HTTPTypes, by name, and the module of each.
declared = re.compile(r"^\s*public (?:final |indirect )*(?:struct|class|enum|protocol|actor) (\w+)")
public = {}
for module, root in (("Faraday", "Sources/Faraday"), ("HTTPTypes", ".build/checkouts/swift-http-types/Sources/HTTPTypes")):
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".swift"):
                for line in open(os.path.join(folder, name)):
                    if found := declared.match(line):
                        public[found.group(1)] = module
# HTTPField.Name and other nested types read as their last name in the AST.
nested = {"Name": "HTTPField.Name", "Status": "HTTPResponse.Status", "Method": "HTTPRequest.Method",
          "Code": "FaradayError.Code"}
concepts = set()
def note(name):
    if name in public:
        concepts.add(nested.get(name, name))
# A node's line: its location, else the start of its range.
where = re.compile(rf"(?:location=|range=\[)[^\s:]*{re.escape(path.split('/')[-1])}:(\d+):")
for node in open(ast_path):
    found = where.search(node)
    if not found or int(found.group(1)) not in wanted:
        continue
    # A member, initializer or requirement of a type: `decl="Faraday.(file).Env.request@…"`,
    # `decl="Faraday.(file).Name extension.named@…"`.
    for module, owner in re.findall(r'decl="(Faraday|HTTPTypes)\.\(file\)\.(\w+)', node):
        note(owner)
    # A type written out: `bind="Faraday.(file).App@…"`.
    for module, name in re.findall(r'bind="(Faraday|HTTPTypes)\.\(file\)\.(\w+)', node):
        note(name)
    # Conformances and the types of what the snippet declares (a parameter's `inout Env`).
    for text in re.findall(r'(?:inherits|interface_type|type)="([^"]*)"', node):
        for name in re.findall(r"\b[A-Z][\w.]*", text):
            note(name.split(".")[-1])  # `HTTPField.Name` is one concept, not two
print(f"{len(concepts)} concepts: {', '.join(sorted(concepts))}")
PYTHON
)"
echo "$result"
if [[ -n "$check" ]]; then
    counted="${result%%:*}"
    grep -qwF "$counted" "$check" || { echo "count-concepts: $check does not say \"$counted\""; exit 1; }
fi
