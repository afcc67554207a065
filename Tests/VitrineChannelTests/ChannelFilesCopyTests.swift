import Foundation
import Glibc
import Testing
@testable import VitrineChannel

/// `ChannelFiles`' chunked copy says what it copied, so that the publisher
/// can refuse a file that changed after it was hashed.
@Suite struct ChannelFilesCopyTests {
    let scratch = Scratch("channel-files-copy")

    @Test func aCopyOfAFileThatChangedSinceItWasHashedSaysWhatItCopied() throws {
        let path = scratch.write("edited.jpg", ChannelPublisherLargeFileTests.bytes(ChannelFiles.chunkBytes + 1))
        let hashed = try ChannelFiles.blob(of: path)
        #expect(hashed.size == UInt64(ChannelFiles.chunkBytes + 1))
        scratch.write("edited.jpg", ChannelPublisherLargeFileTests.bytes(5))
        let copy = try ChannelFiles.writeTemporary(copying: path, for: scratch.file("copy.jpg"))
        defer { unlink(copy.temporary) }
        #expect(copy.copied != hashed)
        #expect(copy.copied == ChannelBlob(sha256: ChannelDigest.sha256(ChannelPublisherLargeFileTests.bytes(5)), size: 5))
        #expect(Array(FileManager.default.contents(atPath: copy.temporary) ?? Data()) == ChannelPublisherLargeFileTests.bytes(5))
    }
}
