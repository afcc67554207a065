internal import CLibFreeType

/// A FreeType call that failed: which one, on which font file, and FreeType's
/// own message for its error code (`FT_Error`, 0 being success).
public struct FreeTypeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C call: `FT_New_Face`, `FT_Load_Glyph`.
    public var call: String
    /// FreeType's error code, or -1 for a limit of Vitrine's own.
    public var code: Int32
    public var message: String
    /// The font file.
    public var file: String

    public init(call: String, code: Int32, message: String, file: String) {
        self.call = call
        self.code = code
        self.message = message
        self.file = file
    }

    /// From a FreeType return value.
    init(_ call: String, _ code: FT_Error, file: String) {
        self.init(call: call, code: Int32(code), message: String(cString: vitrine_ft_error_message(code)), file: file)
    }

    public var description: String {
        code < 0 ? "\(file): \(message)" : "\(file): \(call) failed: \(message) (FreeType error 0x\(String(code, radix: 16)))"
    }
}
