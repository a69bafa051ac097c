# Sourced by check-package-graph.sh and measure-build-times.sh, with their arguments
# (`source consumer-package.sh "$@"`): the repository they look at (the first argument, else
# $FARADAY_REPO, else the one these scripts are in) and its package identity, each product with
# the trait a package must enable to use it, and make_consumer, which writes, in DIR, a package
# that depends on the repository at REPO (identity IDENTITY) for PRODUCT alone, with TRAIT enabled
# when given (`none`: no trait at all, the default ones off too), as a library target, or as an
# executable target when KIND is `executableTarget` (its code is then DIR/Sources/Consumer/main.swift's
# to write).
#
#     make_consumer DIR REPO IDENTITY PRODUCT [TRAIT [KIND]]
repo="$(cd "${1:-${FARADAY_REPO:-$(dirname "${BASH_SOURCE[0]}")/..}}" && pwd)"
identity="$(basename "$repo" | tr "[:upper:]" "[:lower:]")"
# product:trait (none for the first two).
products=(Faraday: FaradayHAL: FaradayNIO:NIO FaradayAsyncHTTPClient:AsyncHTTPClient
    FaradayObservability:Observability FaradayXML:XML FaradayOpenAPI:OpenAPI)

make_consumer() {
    local dir=$1 repo=$2 identity=$3 product=$4 trait=${5:-} kind=${6:-target} traits=""
    [[ -n "$trait" ]] && traits=", traits: [\"$trait\"]"
    [[ "$trait" == none ]] && traits=", traits: []"
    mkdir -p "$dir/Sources/Consumer"
    cat > "$dir/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(path: "$repo"$traits)],
    targets: [.$kind(name: "Consumer", dependencies: [.product(name: "$product", package: "$identity")])]
)
MANIFEST
    [[ "$kind" == target ]] && echo "import $product" > "$dir/Sources/Consumer/Consumer.swift"
    return 0
}
