import Foundation
import Testing

@testable import Faraday

/// One `stat` or `lstat` of a path: what file bodies, resumed downloads and the disk cache's trim
/// read of a file.
@Suite struct FileSignatureTests {
    @Test func aRegularFileHasItsSizeAndModification() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signature-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body.bin")
        try Data(repeating: 7, count: 1_234).write(to: file)
        let modified = Date(timeIntervalSince1970: 1_700_000_000.5)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)

        let signature = try #require(FileSignature(itemAt: file.path))
        #expect(signature.isRegularFile)
        #expect(signature.size == 1_234)
        #expect(abs(signature.modified.timeIntervalSince(modified)) < 0.001)
        #expect(FileSignature(itemAt: folder.path)?.isRegularFile == false)
        #expect(FileSignature(itemAt: folder.appendingPathComponent("missing").path) == nil)
    }

    @Test func aSymbolicLinkIsNotFollowedByItemAtButIsByPath() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signature-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("target.txt")
        try Data("hello".utf8).write(to: file)
        let link = folder.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)

        // As attributesOfItem did: a link is not a regular file, so it is not sent as a body.
        #expect(FileSignature(itemAt: link.path)?.isRegularFile == false)
        #expect(FileSignature(path: link.path)?.isRegularFile == true)
        #expect(FileSignature(path: link.path)?.size == 5)
    }
}
