/// Parses what `read` returns on a DRM fd: `struct drm_event` headers, each
/// followed by its payload; flip completions are `struct drm_event_vblank`.
public enum DRMEventParser {
    static let flipComplete: UInt32 = 0x02  // DRM_EVENT_FLIP_COMPLETE

    public static func flipCompletions(in bytes: [UInt8]) -> [DRMFlipCompletion] {
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        var completions: [DRMFlipCompletion] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let type = u32(offset), length = Int(u32(offset + 4))
            guard length >= 8, offset + length <= bytes.count else { break }
            // type, length, user_data (8), tv_sec, tv_usec, sequence, crtc_id
            if type == flipComplete, length >= 32 {
                let seconds = Int64(u32(offset + 16)), microseconds = Int64(u32(offset + 20))
                completions.append(DRMFlipCompletion(
                    timestampNanoseconds: seconds * 1_000_000_000 + microseconds * 1000, sequence: u32(offset + 24)))
            }
            offset += length
        }
        return completions
    }
}
