import Foundation

/// Where the tests' vendored data and the repository's files are, found from this file's place
/// (`Tests/FaradayTests/Support`), so that a test file can move between folders.
enum TestResources {
    /// `Tests/FaradayTests/Resources`.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Resources")
    /// The repository's root.
    static let repository = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file or folder under `Resources`.
    static func url(_ path: String) -> URL { folder.appending(path: path) }
}
