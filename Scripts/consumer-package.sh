# Sourced by check-package-graph.sh and measure-build-times.sh: writes, in DIR, a package that depends
# on the repository at REPO (identity IDENTITY) for PRODUCT alone, with TRAIT enabled when given.
#
#     make_consumer DIR REPO IDENTITY PRODUCT [TRAIT]
make_consumer() {
    local dir=$1 repo=$2 identity=$3 product=$4 trait=${5:-} traits=""
    [[ -n "$trait" ]] && traits=", traits: [\"$trait\"]"
    mkdir -p "$dir/Sources/Consumer"
    cat > "$dir/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(path: "$repo"$traits)],
    targets: [.target(name: "Consumer", dependencies: [.product(name: "$product", package: "$identity")])]
)
MANIFEST
    echo "import $product" > "$dir/Sources/Consumer/Consumer.swift"
}
