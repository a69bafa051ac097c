#!/usr/bin/env bash
# Makes the Brotli and Zstandard test fixtures in Tests/FaradayTests/Resources/compression/ with the
# reference command-line tools (Debian's `brotli` and `zstd` packages: `apt-get install -y brotli zstd`),
# then checks that each one decompresses back to its input with the same tools and, where Python's
# `brotli` and `zstandard` modules import, with them too; prints each file's size and sha256.
#
#   Scripts/make-compression-fixtures.sh          writes the fixtures
#   Scripts/make-compression-fixtures.sh --check  makes them in a temporary folder and fails unless
#                                                 they equal the committed ones byte for byte
#
# Only `brotli` and `zstd` compress; python3 only writes the plain inputs. Every tool reads standard
# input and writes standard output, so no file name, size or time stamp of an input reaches a
# fixture (zstd never stores a file name; brotli stores no metadata). The two decompression bombs
# are streamed from /dev/zero into the compressor: no 2 GiB file is ever written. Byte-identical
# output is promised only for the same tool versions (README.md beside the fixtures names them).
# Takes about two minutes (brotli at its default quality 11 over 2 GiB of zeros is most of it).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/Tests/FaradayTests/Resources/compression"
check=0
case "${1:-}" in
    "") ;;
    --check) check=1 ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

for tool in brotli zstd python3 sha256sum cmp; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install -y brotli zstd)" >&2; exit 1; }
done
# zstd reads its default level and thread count from these; the fixtures must not depend on them.
unset ZSTD_CLEVEL ZSTD_NBTHREADS

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ $check -eq 1 ]]; then out="$work/out"; else out="$dest"; fi
mkdir -p "$out"

brotli --version
zstd --version

# Plain inputs.
python3 - "$work" <<'PY'
import sys, pathlib
work = pathlib.Path(sys.argv[1])
pattern = bytes(i % 251 for i in range(300_000))
(work / "pattern-300000").write_bytes(pattern)
(work / "pattern-first-100000").write_bytes(pattern[:100_000])
(work / "pattern-rest-200000").write_bytes(pattern[100_000:])
(work / "pattern-131072").write_bytes(pattern[:131_072])
(work / "text").write_bytes('{"hello":"world","note":"déjà vu – 日本語"}'.encode("utf-8"))
PY

zeros=2147483648 # 2 GiB
zstd_c=(zstd --no-progress -q -c)

# Fixtures.
brotli -c -q 11 < "$work/pattern-300000" > "$out/pattern-300000.br"
"${zstd_c[@]}" -19 < "$work/pattern-300000" > "$out/pattern-300000.zst"
"${zstd_c[@]}" -3 < "$work/pattern-first-100000" > "$work/frame1.zst"
"${zstd_c[@]}" -3 < "$work/pattern-rest-200000" > "$work/frame2.zst"
cat "$work/frame1.zst" "$work/frame2.zst" > "$out/pattern-300000-two-frames.zst"
brotli -c -q 5 -w 24 < "$work/pattern-300000" > "$out/pattern-300000-window.br"
# Two decoder windows (64 KiB) exactly: a frame that ends at a window's end.
"${zstd_c[@]}" -19 < "$work/pattern-131072" > "$out/pattern-131072.zst"
brotli -c -q 11 < "$work/pattern-131072" > "$out/pattern-131072.br"
# A 16 MiB window, past the 8 MiB RFC 9659 lets HTTP's zstd use.
"${zstd_c[@]}" --long=24 < "$work/pattern-300000" > "$out/pattern-300000-window16MiB.zst"
head -c "$zeros" /dev/zero | brotli -c > "$out/zeros-2GiB.br"
head -c "$zeros" /dev/zero | "${zstd_c[@]}" > "$out/zeros-2GiB.zst"
brotli -c < "$work/text" > "$out/text.br"
"${zstd_c[@]}" < "$work/text" > "$out/text.zst"

# Round trips with the tools themselves.
roundtrip() { # fixture, plain input file ("zeros" for the bombs)
    local fixture="$out/$1" decoder
    case "$1" in
        *.br) decoder=(brotli -d -c) ;;
        *.zst) decoder=(zstd --no-progress -q -d -c) ;;
    esac
    if [[ "$2" == zeros ]]; then
        "${decoder[@]}" < "$fixture" | cmp -s - <(head -c "$zeros" /dev/zero)
    else
        "${decoder[@]}" < "$fixture" | cmp -s - "$work/$2"
    fi || { echo "round trip FAILED: $1" >&2; exit 1; }
    echo "round trip ok ($(basename "${decoder[0]}")): $1"
}
roundtrip pattern-300000.br pattern-300000
roundtrip pattern-300000.zst pattern-300000
roundtrip pattern-300000-two-frames.zst pattern-300000
roundtrip pattern-300000-window.br pattern-300000
roundtrip pattern-131072.zst pattern-131072
roundtrip pattern-131072.br pattern-131072
roundtrip pattern-300000-window16MiB.zst pattern-300000
roundtrip zeros-2GiB.br zeros
roundtrip zeros-2GiB.zst zeros
roundtrip text.br text
roundtrip text.zst text

# The two-frame file must hold two frames, and the bombs must stay small.
frames=$(zstd -l "$out/pattern-300000-two-frames.zst" | awk 'NR == 2 { print $1 }')
[[ "$frames" == 2 ]] || { echo "pattern-300000-two-frames.zst has $frames frames, not 2" >&2; exit 1; }
for bomb in zeros-2GiB.br zeros-2GiB.zst; do
    size=$(stat -c %s "$out/$bomb")
    (( size < 200000 )) || { echo "$bomb is $size bytes: too large for a bomb fixture" >&2; exit 1; }
done

# Cross-check with Python's modules (pip install brotli zstandard), when they are there.
if python3 -c 'import brotli, zstandard' 2>/dev/null; then
    python3 - "$out" "$work" "$zeros" <<'PY'
import sys, pathlib, brotli, zstandard
out, work, zeros = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
chunk = 1 << 20

def brotli_chunks(data):
    d = brotli.Decompressor()
    yield d.process(data, output_buffer_limit=chunk)
    while not d.is_finished():
        piece = d.process(b"", output_buffer_limit=chunk)
        if not piece and not d.is_finished():
            raise ValueError("truncated brotli stream")
        yield piece

def zstd_chunks(data):
    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    while piece := reader.read(chunk):
        yield piece

def check(name, expected):
    data = (out / name).read_bytes()
    chunks = brotli_chunks(data) if name.endswith(".br") else zstd_chunks(data)
    if expected is None:  # zeros
        total = 0
        for piece in chunks:
            if piece.count(0) != len(piece):
                raise SystemExit(f"{name}: a non-zero byte")
            total += len(piece)
        ok = total == zeros
    else:
        ok = b"".join(chunks) == expected
    if not ok:
        raise SystemExit(f"python cross-check FAILED: {name}")
    print(f"python cross-check ok: {name}")

pattern = (work / "pattern-300000").read_bytes()
text = (work / "text").read_bytes()
for name in ["pattern-300000.br", "pattern-300000.zst", "pattern-300000-two-frames.zst",
             "pattern-300000-window.br", "text.br", "text.zst"]:
    check(name, text if name.startswith("text") else pattern)
for name in ["zeros-2GiB.br", "zeros-2GiB.zst"]:
    check(name, None)
PY
else
    echo "python cross-check skipped: python3 has no brotli/zstandard module (pip install brotli zstandard)"
fi

names=(pattern-300000.br pattern-300000.zst pattern-300000-two-frames.zst pattern-300000-window.br
    pattern-131072.zst pattern-131072.br pattern-300000-window16MiB.zst zeros-2GiB.br zeros-2GiB.zst text.br text.zst)
for name in "${names[@]}"; do
    printf '%8d  %s\n' "$(stat -c %s "$out/$name")" "$(cd "$out" && sha256sum "$name")"
done

if [[ $check -eq 1 ]]; then
    differ=0
    for name in "${names[@]}"; do
        cmp -s "$out/$name" "$dest/$name" || { echo "differs from the committed file: $name"; differ=1; }
    done
    [[ $differ -eq 0 ]] || { echo "regenerated fixtures differ (other tool versions?)" >&2; exit 1; }
    echo "all ${#names[@]} fixtures equal the committed ones"
fi
