import CLibPNG
import VitrineCore

/// Reads a PNG row by row into XRGB8888, so that a picture is framed while it
/// decodes and never exists whole: its memory is one strip of rows, whatever
/// its size (libpng's classic API: `png_read_info`, `png_read_row`,
/// `png_read_end`, through the C functions in CLibPNG's shim.h, which keep
/// libpng's longjmp on its side of the call).
///
/// Palette and grey are expanded, 16 bits scaled to 8, a file gamma (gAMA)
/// converted to sRGB, and alpha dropped, as `PNGCodec.decode` does, except
/// that a 16-bit file without gAMA is taken as sRGB, as browsers show it (the
/// simplified API takes it as linear). An interlaced picture cannot be read in
/// row order (each of its seven passes touches the whole picture):
/// `isInterlaced` says so, and the caller reads it whole (`readImage`).
public final class PNGRowReader {
    /// The file's bytes: an array the reader holds, or memory that `owner` keeps
    /// alive (a mapped file), so that a picture on disk need not be copied in.
    private enum Input {
        case array([UInt8])
        case borrowed(UnsafeRawBufferPointer, owner: AnyObject)

        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .array(let bytes): bytes.withUnsafeBytes(body)
            case .borrowed(let raw, _): body(raw)
            }
        }
    }

    private let input: Input
    /// On the heap, at one address for the reader's life: libpng keeps a
    /// pointer to it for its callbacks (`png_get_error_ptr`, `png_get_io_ptr`).
    private let reader: UnsafeMutablePointer<vitrine_png_reader>
    public let size: PixelSize
    public let isInterlaced: Bool
    /// The rows read so far.
    public private(set) var rowsRead = 0

    /// The largest ancillary chunk (text, ICC profile) accepted, decompressed:
    /// a zTXt chunk of a few KiB can otherwise inflate to gigabytes.
    public static let chunkLimit = 8 << 20

    /// Reads the header (`png_read_info`). Throws when it cannot be read, or
    /// when the picture is larger than `maxPixels`.
    public convenience init(_ bytes: [UInt8], maxPixels: Int = .max) throws(PNGError) {
        try self.init(input: .array(bytes), maxPixels: maxPixels)
    }

    /// Reads the header of the PNG in `bytes`, which `owner` keeps valid and
    /// unchanged for the reader's life (the reader holds `owner`): a mapped file.
    public convenience init(borrowing bytes: UnsafeRawBufferPointer, owner: AnyObject, maxPixels: Int = .max) throws(PNGError) {
        try self.init(input: .borrowed(bytes, owner: owner), maxPixels: maxPixels)
    }

    private init(input: Input, maxPixels: Int) throws(PNGError) {
        self.input = input
        let reader = UnsafeMutablePointer<vitrine_png_reader>.allocate(capacity: 1)
        reader.initialize(to: vitrine_png_reader())
        let began = input.withUnsafeBytes { raw in
            reader.pointee.data = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            reader.pointee.size = raw.count
            return vitrine_png_begin(reader, Self.chunkLimit)
        }
        let problem: String?
        if began == 0 {
            problem = Self.message(of: reader)
        } else if Int(reader.pointee.width) * Int(reader.pointee.height) > maxPixels {
            problem = "\(reader.pointee.width)x\(reader.pointee.height) is more than the limit of \(maxPixels) pixels"
        } else {
            problem = nil
        }
        if let problem {
            vitrine_png_free(reader)
            reader.deallocate()
            throw PNGError(message: problem)
        }
        self.reader = reader
        size = PixelSize(width: Int(reader.pointee.width), height: Int(reader.pointee.height))
        isInterlaced = reader.pointee.interlaced != 0
    }

    deinit {
        vitrine_png_free(reader)
        reader.deallocate()
    }

    /// Reads the next `count` rows into `rows` (`size.width` pixels each, one
    /// after another); after the last row, checks the rest of the file.
    public func readRows(into rows: UnsafeMutablePointer<UInt32>, count: Int) throws(PNGError) {
        precondition(!isInterlaced && count >= 0 && rowsRead + count <= size.height, "rows \(rowsRead)..<\(rowsRead + count) of \(size.height)")
        let done = input.withUnsafeBytes { raw in
            // An array's storage does not move while it is alive and unchanged,
            // but Swift promises the pointer only inside this closure: lent again each call.
            reader.pointee.data = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard vitrine_png_read_rows(reader, rows, UInt32(count)) != 0 else { return false }
            return rowsRead + count < size.height || vitrine_png_finish(reader) != 0
        }
        guard done else { throw PNGError(message: Self.message(of: reader)) }
        rowsRead += count
    }

    /// Reads the whole picture into `image` (`size`), interlaced or not
    /// (`png_read_image`), and checks the rest of the file.
    public func readImage(into image: PixelImage) throws(PNGError) {
        precondition(image.size == size && rowsRead == 0, "readImage of \(image.size) for \(size) after \(rowsRead) rows")
        let rowPointers = UnsafeMutablePointer<png_bytep?>.allocate(capacity: max(1, size.height))
        defer { rowPointers.deallocate() }
        let done = input.withUnsafeBytes { raw in
            reader.pointee.data = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return vitrine_png_read_image(reader, image.pixels.baseAddress, rowPointers) != 0 && vitrine_png_finish(reader) != 0
        }
        guard done else { throw PNGError(message: Self.message(of: reader)) }
        rowsRead = size.height
    }

    private static func message(of reader: UnsafeMutablePointer<vitrine_png_reader>) -> String {
        withUnsafeBytes(of: &reader.pointee.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
