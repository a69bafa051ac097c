#!/usr/bin/env python3
# Expands DocC `@Snippet` directives in the articles (Sources/**/*.docc/**/*.md) into plain fenced
# Swift code blocks, generated from the compiled snippet files in Snippets/ (the source of truth),
# so the articles read correctly as plain Markdown too. Standard library only.
#
#   Scripts/expand-snippets.py --write   # rewrite the articles in place
#   Scripts/expand-snippets.py --check   # change nothing; exit 1 listing every stale block
#   (either accepts --root DIR; the default is the repository holding this script)
#
# --write replaces each line
#     @Snippet(path: "faraday-swift/Snippets/NAME", slice: "SLICE")
# with a marker line and a fenced block, at the directive's indentation:
#     <!-- snippet: NAME#SLICE -->
#     ```swift
#     ...the code of that slice...
#     ```
# (`<!-- snippet: NAME -->` for a directive without `slice:`, meaning the whole visible file).
# A marker line already followed by a fenced block has that block regenerated, so --write is
# idempotent. Every other byte of an article is kept. --check reports any block that differs from
# what --write would produce, any `@Snippet` directive left, and markers naming a missing snippet
# or slice; it exits 0 with a one-line summary otherwise.
#
# The code is extracted as swift-docc-plugin 1.5.0 (Sources/Snippets/Parsing/SnippetParser.swift)
# builds the snippet symbol graph, and as DocC (swift-6.3 Snippet.swift) renders a slice:
# - Leading blank lines of the file are skipped; then the leading run of comment lines (`//` or
#   `/* */`), up to the first blank line, code line or snippet marker, is the description and is
#   never part of the code. (DocC shows that description above a whole-file snippet; the block
#   written here carries the code only.)
# - Marker lines are comments `// snippet.X` or `/* snippet.X */` (any indentation, "snippet."
#   and the keyword matched case-insensitively, and as prefixes: `snippet.hidden` is `hide`).
#   A block comment spread over several lines whose only word is `snippet.X` is a marker too.
#   Markers never appear in the code.
# - `snippet.hide` / `snippet.show` toggle visibility; hidden lines are dropped everywhere.
# - `snippet.NAME` starts slice NAME and ends the slice in progress, if any: slices never nest
#   or overlap. `snippet.end` ends the slice in progress. A slice still open at end of file ends
#   there. A `snippet.NAME` met while hidden is ignored (no slice starts, the open one goes on).
#   A slice with no visible line is not created; a NAME used twice keeps the later slice.
#   NAME runs to the first whitespace and must use URL-path characters, else the line is code.
# - Blank lines are never the first visible line of the file. A slice's leading and trailing
#   blank lines are trimmed. The common run of leading spaces over all visible lines of the file
#   is removed (plugin), then over the slice's non-blank lines when all of its non-empty lines
#   start with whitespace (DocC). Whole-file code: the visible lines minus trailing blank lines.
import argparse
import os
import re
import sys
from pathlib import Path

# Swift's Character.isWhitespace (Unicode White_Space).
WHITESPACE = set("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {
    chr(c) for c in range(0x2000, 0x200B)
}
# Foundation's CharacterSet.urlPathAllowed.
URL_PATH_ALLOWED = set(
    "!$&'()*+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~"
)
SNIPPET_EXTENSION = ".swift"

DIRECTIVE = re.compile(
    r'^(?P<indent>[ \t]*)@Snippet\(\s*path:\s*"(?:[^"/]+/)?Snippets/(?P<name>[^"]+)"'
    r'\s*(?:,\s*slice:\s*"(?P<slice>[^"]*)"\s*)?\)[ \t]*$'
)
ANY_DIRECTIVE = re.compile(r"^[ \t]*@Snippet\(")
MARKER = re.compile(r"^(?P<indent>[ \t]*)<!-- snippet: (?P<name>[^#\s]+)(?:#(?P<slice>\S*))? -->[ \t]*$")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def is_blank(s):
    return all(c in WHITESPACE for c in s)


def lstrip_ws(s):
    i = 0
    while i < len(s) and s[i] in WHITESPACE:
        i += 1
    return s[i:]


# ---------------------------------------------------------------------------------------------
# Snippet parsing (a line-by-line port of swift-docc-plugin's SnippetParser for `//`, `/* */`).

LINE_COMMENT = ("line", "//", None)
BLOCK_COMMENT = ("block", "/*", "*/")
COMMENT_STYLES = [LINE_COMMENT, BLOCK_COMMENT]


def strip_comment_prefix(line, style):
    """tryParseCommentMarkerPrefix: the comment text, or None if `line` is not that comment."""
    kind, prefix, suffix = style
    trimmed = lstrip_ws(line)
    if not trimmed.startswith(prefix):
        return None
    trimmed = trimmed[len(prefix):]
    if kind == "block":
        closing = trimmed.rfind(suffix)
        if closing != -1:
            trimmed = trimmed[:closing]
            while trimmed and trimmed[-1] in WHITESPACE:
                trimmed = trimmed[:-1]
    return trimmed


def strip_any_comment_prefix(line):
    for style in COMMENT_STYLES:
        text = strip_comment_prefix(line, style)
        if text is not None:
            return text
    return None


def parse_marker_with_style(line, style):
    """tryParseSnippetMarker: ('show'|'hide'|'end', None), ('slice', NAME) or None."""
    text = strip_comment_prefix(line, style)
    if text is None:
        return None
    text = lstrip_ws(text)
    if not text.lower().startswith("snippet."):
        return None
    text = text[len("snippet."):]
    lowered = text.lower()
    for keyword in ("show", "hide", "end"):
        if lowered.startswith(keyword):
            return (keyword, None)
    identifier = ""
    for c in text:
        if c in WHITESPACE:
            break
        identifier += c
    if not all(c in URL_PATH_ALLOWED for c in identifier):
        return None
    return ("slice", identifier)


def parse_marker(line):
    for style in COMMENT_STYLES:
        result = parse_marker_with_style(line, style)
        if result is not None:
            return result
    return None


class Snippet:
    def __init__(self, source, filename):
        self.warnings = []
        if "\r" in source:
            # Swift treats "\r\n" as one Character, so the plugin would not split such a file.
            raise ValueError(f"{filename}: has carriage returns; snippet files must use LF only")
        lines = source.split("\n")
        i = 0
        while i < len(lines) and is_blank(lines[i]):
            i += 1
        # The description: leading comment lines up to a blank line, marker or code.
        while i < len(lines):
            line = lines[i]
            if is_blank(line) or parse_marker(line) is not None:
                break
            if strip_any_comment_prefix(line) is None:
                break
            i += 1

        self.lines = []  # presentation lines
        self.numbers = []  # the file's line number (from 1) of each presentation line
        self.slices = {}
        current = None  # (identifier, start line)
        visible = True
        pending = None  # [accumulated content, accumulated raw lines] of an open /* comment

        def end_slice():
            nonlocal current
            if current is None:
                return
            name, start = current
            if start < len(self.lines):
                self.slices[name] = (start, len(self.lines))
            current = None

        def apply(result):
            nonlocal visible, current
            kind, name = result
            if kind == "show":
                visible = True
            elif kind == "hide":
                visible = False
            elif kind == "end":
                end_slice()
            elif visible:
                end_slice()
                current = (name, len(self.lines))

        def append(raw_lines, first_number):
            for offset, raw in enumerate(raw_lines):
                if visible and not (not self.lines and is_blank(raw)):
                    self.lines.append(raw)
                    self.numbers.append(first_number + offset)

        for number in range(i, len(lines)):
            line = lines[number]
            if pending is not None:
                pending[1].append(line)
                closing = line.find("*/")
                if closing == -1:
                    pending[0] += " " + line
                    continue
                pending[0] += " " + line[:closing]
                words = pending[0].split()  # close enough to split(whereSeparator: isWhitespace)
                result = None
                if len(words) == 1:
                    result = parse_marker_with_style(f"/* {words[0]} */", BLOCK_COMMENT)
                if result is not None:
                    apply(result)
                else:
                    append(pending[1], pending[2])
                pending = None
                continue
            result = parse_marker(line)
            if result is not None:
                apply(result)
                trimmed = lstrip_ws(line)
                if trimmed.startswith("/*"):
                    closing = trimmed.rfind("*/")
                    if closing != -1 and not is_blank(trimmed[closing + 2:]):
                        self.warnings.append(
                            f"{filename}:{number + 1}: content after block comment snippet marker "
                            f"is ignored: {lstrip_ws(trimmed[closing + 2:])}"
                        )
                continue
            stripped = line.strip(" \t")
            if stripped.startswith("/*") and "*/" not in stripped:
                pending = [stripped[2:], [line], number + 1]
                continue
            append([line], number + 1)
        if pending is not None:
            append(pending[1], pending[2])
        end_slice()

        for name, (lower, upper) in list(self.slices.items()):
            while lower < upper and is_blank(self.lines[lower]):
                lower += 1
            while lower < upper and is_blank(self.lines[upper - 1]):
                upper -= 1
            self.slices[name] = (lower, upper)

        # trimExtraIndentation: spaces only; empty lines do not count.
        trimmed = list(self.lines)
        while trimmed and is_blank(trimmed[0]):
            trimmed.pop(0)
        while trimmed and is_blank(trimmed[-1]):
            trimmed.pop()
        indents = [len(l) - len(l.lstrip(" ")) for l in trimmed if l != ""]
        minimum = min(indents) if indents else 0
        if minimum > 0:
            self.lines = [l[minimum:] for l in trimmed]
        while self.lines and is_blank(self.lines[-1]):
            self.lines.pop()

    def line_numbers(self, slice_name):
        """The file's line numbers (from 1) of a slice's displayed lines, or None if no such slice."""
        if slice_name not in self.slices:
            return None
        lower, upper = self.slices[slice_name]
        return self.numbers[lower:upper]

    def code(self, slice_name):
        """The displayed lines of a slice (or of the whole file), or None if no such slice."""
        if slice_name is None:
            return list(self.lines)
        if slice_name not in self.slices:
            return None
        lower, upper = self.slices[slice_name]
        lines = self.lines[lower:upper]
        # DocC's linesWithoutLeadingWhitespace.
        if not lines or any(l and l[0] not in WHITESPACE for l in lines):
            return lines
        counts = [len(l) - len(lstrip_ws(l)) for l in lines if not is_blank(l)]
        if not counts:
            return lines
        return [l[min(counts):] for l in lines]


# ---------------------------------------------------------------------------------------------
# Articles


class Snippets:
    def __init__(self, root):
        self.root = root / "Snippets"
        self.cache = {}

    def get(self, name):
        if name not in self.cache:
            path = self.root / (name + SNIPPET_EXTENSION)
            if ".." in Path(name).parts or not path.is_file():
                self.cache[name] = None
            else:
                snippet = Snippet(read(path), str(path))
                for warning in snippet.warnings:
                    print(f"warning: {warning}", file=sys.stderr)
                self.cache[name] = snippet
        return self.cache[name]


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def fenced_block(indent, code):
    longest = 0
    for line in code:
        run = re.match(r"[ \t]*(`+)", line)
        if run:
            longest = max(longest, len(run.group(1)))
    fence = "`" * max(3, longest + 1)
    body = [indent + line if line else "" for line in code]
    return [indent + fence + "swift", *body, indent + fence]


def find_fence_end(lines, start):
    """Index of the line closing the fence opened at lines[start] (len(lines) if unclosed)."""
    opener = FENCE.match(lines[start]).group("fence")
    for j in range(start + 1, len(lines)):
        close = FENCE.match(lines[j])
        if (close and close.group("fence")[0] == opener[0]
                and len(close.group("fence")) >= len(opener) and is_blank(close.group("info"))):
            return j
    return len(lines)


def process(article, snippets):
    """Returns (new text, problems); problems are (line number, message, is_error)."""
    text = read(article)
    lines = text.split("\n")
    out = []
    problems = []
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = DIRECTIVE.match(line)
        marker = MARKER.match(line)
        if directive or marker:
            m = directive or marker
            indent, name, slice_name = m.group("indent"), m.group("name"), m.group("slice")
            label = name if slice_name is None else f"{name}#{slice_name}"
            snippet = snippets.get(name)
            code = snippet.code(slice_name) if snippet else None
            if snippet is None:
                problems.append((i + 1, f"{label}: no snippet Snippets/{name}{SNIPPET_EXTENSION}", True))
            elif code is None:
                problems.append((i + 1, f"{label}: no slice '{slice_name}' in Snippets/{name}{SNIPPET_EXTENSION}", True))
            elif not code:
                problems.append((i + 1, f"{label}: the snippet has no code", True))
            if directive:
                problems.append((i + 1, f"{label}: @Snippet directive not expanded", False))
            end = i + 1
            old_block = []
            if marker and i + 1 < len(lines) and FENCE.match(lines[i + 1]):
                end = find_fence_end(lines, i + 1) + 1
                old_block = lines[i + 1:end]
            new_block = fenced_block(indent, code) if code else old_block
            if marker and not directive and old_block != new_block:
                problems.append((i + 1, f"{label}: code block differs from the snippet"
                                 if old_block else f"{label}: marker has no code block", False))
            out.append(f"{indent}<!-- snippet: {label} -->")
            out.extend(new_block)
            i = end
            continue
        if ANY_DIRECTIVE.match(line):
            problems.append((i + 1, f"unrecognised @Snippet directive: {line.strip()}", True))
        if FENCE.match(line):
            end = min(find_fence_end(lines, i) + 1, len(lines))
            out.extend(lines[i:end])
            i = end
            continue
        out.append(line)
        i += 1
    return "\n".join(out), problems


def main():
    default_root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description="Expand DocC @Snippet directives into fenced code blocks.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the articles in place")
    mode.add_argument("--check", action="store_true", help="report stale blocks, change nothing")
    parser.add_argument("--root", type=Path, default=default_root, help="repository root (default: %(default)s)")
    args = parser.parse_args()

    root = args.root.resolve()
    articles = sorted(p for p in (root / "Sources").rglob("*.md")
                      if any(part.endswith(".docc") for part in p.relative_to(root).parts[:-1]))
    snippets = Snippets(root)
    results = []
    errors = stale = blocks = 0
    for article in articles:
        display = os.path.relpath(article, root)
        try:
            new_text, problems = process(article, snippets)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        blocks += new_text.count("<!-- snippet: ")
        for number, message, is_error in problems:
            if is_error or args.check:
                print(f"{display}:{number}: {message}", file=sys.stderr)
            errors += is_error
            stale += not is_error
        results.append((article, display, new_text))

    if args.check:
        if errors or stale:
            print(f"expand-snippets: {errors + stale} problem(s); run Scripts/expand-snippets.py --write",
                  file=sys.stderr)
            return 1
        print(f"expand-snippets: {blocks} snippet blocks in {len(articles)} articles match Snippets/")
        return 0

    if errors:
        print(f"expand-snippets: {errors} error(s); nothing written", file=sys.stderr)
        return 1
    changed = 0
    for article, display, new_text in results:
        if read(article) != new_text:
            write(article, new_text)
            print(f"updated {display}")
            changed += 1
    print(f"expand-snippets: {blocks} snippet blocks in {len(articles)} articles, {changed} file(s) updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
