import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// A ``DiskCacheStore`` on a host shared with other users (issue 66): it keeps its files in a
/// folder of its own that nobody else may write, serves no file that another user could have
/// planted, and writes no credential in them.
@Suite(.timeLimit(.minutes(1))) struct DiskCacheStoreOwnershipTests {
    /// Whether the tests can give a file to another user (CI runs them as root).
    static let canChown = geteuid() == 0
    /// `nobody`.
    static let otherUser: uid_t = 65534

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appending(
            path: "faraday-cache-owner-\(UUID().uuidString)",
            directoryHint: .isDirectory
        )
    }

    private func give(_ url: URL, to owner: uid_t) throws {
        try FileManager.default.setAttributes([.ownerAccountID: owner], ofItemAtPath: url.path)
    }

    /// A connection whose cache stores in `store`, and an origin whose `/v1/me` varies by the
    /// credentials (answered with `must-revalidate`, which a cache shared by users may store).
    private func origin() -> CachedOrigin {
        let origin = CachedOrigin()
        origin.route("/v1/me") { call, _ in
            StubResponse(
                headers: origin.headers([
                    ("Cache-Control", "max-age=60, must-revalidate"), ("Vary", "Authorization, Cookie"),
                ]),
                body: "me \(call)"
            )
        }
        return origin
    }

    private static let credentials: HTTPFields = [
        .authorization: "Bearer ALICE-SECRET-TOKEN", .cookie: "session=ALICE-SECRET-COOKIE",
    ]

    /// Every byte of every file under `folder`.
    private func bytes(under folder: URL) throws -> Data {
        var all = Data()
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            if let data = try? Data(contentsOf: file) { all.append(data) }
        }
        return all
    }

    @Test func theStoresFilesHoldNoCredential() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = origin()
        let store = try DiskCacheStore(directory: directory)
        let (connection, _) = try origin.connection(store)
        _ = try await connection.get("me", headers: Self.credentials).value
        #expect(try await connection.get("me", headers: Self.credentials).value.cacheStatus == .hit)
        store.flush()
        let files = try bytes(under: directory)
        #expect(files.count > 100)
        #expect(files.range(of: Data("ALICE".utf8)) == nil)
    }

    /// A store in `directory` holding the answer to one `GET me` from `origin`: its entry's file.
    private func storedEntry(in directory: URL, from origin: CachedOrigin) async throws -> URL {
        let store = try DiskCacheStore(directory: directory)
        let (connection, _) = try origin.connection(store)
        _ = try await connection.get("me").value
        store.flush()
        let entries = FileManager.default.enumerator(at: store.root, includingPropertiesForKeys: nil)?.allObjects
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "entry" }
        return try #require(entries?.first)
    }

    @Test(.enabled(if: canChown)) func anEntryFileOfAnotherUserIsNotServed() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = origin()
        let entry = try await storedEntry(in: directory, from: origin)
        try give(entry, to: Self.otherUser)
        let (later, _) = try origin.connection(try DiskCacheStore(directory: directory))
        let env = try await later.get("me").value
        #expect(env.cacheStatus == .miss && env.response?.text == "me 2")
    }

    @Test func anEntryThatIsALinkIsNotServed() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = origin()
        let entry = try await storedEntry(in: directory, from: origin)
        let elsewhere = directory.appending(path: "elsewhere")
        try FileManager.default.moveItem(at: entry, to: elsewhere)
        try FileManager.default.createSymbolicLink(at: entry, withDestinationURL: elsewhere)
        let (later, _) = try origin.connection(try DiskCacheStore(directory: directory))
        #expect(try await later.get("me").value.response?.text == "me 2")
    }

    @Test(.enabled(if: canChown)) func aFolderOfAnotherUserIsRefused() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try give(directory, to: Self.otherUser)
        #expect(throws: FaradayError.self) { try DiskCacheStore(directory: directory) }
    }

    @Test(.enabled(if: canChown)) func aStoreFolderOfAnotherUserIsRefused() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try DiskCacheStore(directory: directory).root
        try give(root, to: Self.otherUser)
        #expect(throws: FaradayError.self) { try DiskCacheStore(directory: directory) }
    }

    @Test(arguments: [0o777, 0o770, 0o707])
    func aFolderOthersMayWriteIsRefused(_ mode: Int) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try DiskCacheStore(directory: directory).root
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: root.path)
        #expect(throws: FaradayError.self) { try DiskCacheStore(directory: directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory.path)
        #expect(throws: FaradayError.self) { try DiskCacheStore(directory: directory) }
    }

    @Test func aLinkInPlaceOfTheStoreFolderIsRefused() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try DiskCacheStore(directory: directory).root
        let elsewhere = directory.appending(path: "elsewhere", directoryHint: .isDirectory)
        try FileManager.default.moveItem(at: root, to: elsewhere)
        try FileManager.default.createSymbolicLink(at: root, withDestinationURL: elsewhere)
        #expect(throws: FaradayError.self) { try DiskCacheStore(directory: directory) }
    }

    @Test func aNewStoreFolderIsTheOwnersOnly() throws {
        let directory = temporaryDirectory().appending(path: "a/b", directoryHint: .isDirectory)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let root = try DiskCacheStore(directory: directory).root
        for folder in [root, directory] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.path)
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700)
        }
    }
}
