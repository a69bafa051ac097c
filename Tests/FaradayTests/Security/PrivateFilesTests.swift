import Foundation
import Testing

@testable import Faraday

/// The files Faraday writes for a user (a cookie jar, a spooled upload body, a cache entry) are
/// readable by their owner only, from the moment they exist (curl CVE-2022-32207).
@Suite struct PrivateFilesTests {
    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("private-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private func mode(_ file: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    private func storeACookie(in jar: CookieJar) throws {
        let origin = try #require(URL(string: "https://example.com/"))
        jar.store(setCookieHeaders: ["sid=SECRET; Max-Age=3600"], from: origin, now: Date())
    }

    @Test func aNewCookieFileIsTheOwnersOnly() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try storeACookie(in: try CookieJar(file: file))
        #expect(try mode(file) == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("SECRET"))
    }

    @Test(arguments: [0o600, 0o644])
    func aCookieFileStaysOrBecomesTheOwnersOnlyWhenSaved(_ before: Int) throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try storeACookie(in: try CookieJar(file: file))
        try FileManager.default.setAttributes([.posixPermissions: before], ofItemAtPath: file.path)
        let jar = try CookieJar(file: file)
        jar.store(setCookieHeaders: ["other=1; Max-Age=60"], from: try #require(URL(string: "https://example.com/")))
        #expect(try mode(file) == 0o600)
        #expect(jar.lastSaveError == nil)
        // Only the jar's file is left in the folder: no temporary file stays behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cookies.json"])
    }

    @Test func aSpooledUploadBodyIsTheOwnersOnly() async throws {
        var request = Request(method: .post, url: try #require(URL(string: "https://example.com/upload")))
        request.body = .stream {
            AsyncStream {
                $0.yield(Data("password=SECRET".utf8))
                $0.finish()
            }
        }
        let file = try await URLSessionAdapter.spool(request)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try mode(file) == 0o600)
        #expect(try Data(contentsOf: file) == Data("password=SECRET".utf8))
    }

    @Test func aCacheEntryFileIsTheOwnersOnly() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DiskCacheStore(directory: folder.appendingPathComponent("cache"))
        let file = try store.temporaryFile()
        #expect(try mode(file) == 0o600)
        #expect(try mode(file.deletingLastPathComponent()) == 0o700)
    }

    @Test func aPrivateFileIsNeverCreatedOverAnExistingOneOrALink() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("target")
        try Data("keep".utf8).write(to: target)
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect(throws: FaradayError.self) { try PrivateFile.create(link) }
        #expect(throws: FaradayError.self) { try PrivateFile.create(target) }
        #expect(try Data(contentsOf: target) == Data("keep".utf8))
    }
}
