import VitrineCore
import VitrineGIF
import VitrineWebP
import VitrineSystem

/// A slide's picture decoded: its output-sized frame (an animation's first
/// frame), and an animation's frames when it has more than one.
public struct DecodedSlide: Sendable {
    public var frame: PixelImage
    public var animation: AnimatedFrames?
    /// A video slide's frames, decoded as it plays; `frame` is its first.
    public var video: (any SlideVideo)?

    public init(frame: PixelImage, animation: AnimatedFrames? = nil, video: (any SlideVideo)? = nil) {
        self.frame = frame
        self.animation = animation
        self.video = video
    }
}

extension SlideDecoding {
    /// `frame(for:)`, and for an animated GIF or WebP every frame too
    /// (`animation(_:request:)`), decoded from the bytes the still frame was
    /// decoded from (libwebp and giflib read a file whole); the still frame is
    /// what shows until the slide plays, and while a finger holds it.
    public static func picture(for request: SlideRequest, workspace: SlideDecodingWorkspace,
                               frameStorage: PixelStorage? = nil) throws(SlideError) -> DecodedSlide {
        let (frame, whole) = try frameAndFile(for: request, workspace: workspace, frameStorage: frameStorage)
        guard let whole else { return DecodedSlide(frame: frame) }
        return DecodedSlide(frame: frame, animation: try animation(whole, request: request))
    }

    /// `picture(for:)` from a file already open (the sandboxed decoder's, handed over as a descriptor).
    public static func picture(of file: borrowing OpenFile, request: SlideRequest, workspace: SlideDecodingWorkspace,
                               frameStorage: PixelStorage? = nil) throws(SlideError) -> DecodedSlide {
        let (frame, whole) = try frameAndFile(of: file, request: request, workspace: workspace, frameStorage: frameStorage)
        guard let whole else { return DecodedSlide(frame: frame) }
        return DecodedSlide(frame: frame, animation: try animation(whole, request: request))
    }

    /// The most memory one animated slide's stored frames may take. Frames are
    /// kept at the size that covers the output (a small GIF at its own size),
    /// so a typical web animation fits whole; a long full-screen one is stored
    /// smaller, down to `smallestAnimationScale` of that size, and played
    /// scaled up. 64 MiB: eight 1080p frames, or 128 frames of 512x256.
    public static let animationByteLimit = 64 << 20

    /// The least linear scale at which an animation's frames are stored to fit
    /// `animationByteLimit`; one that needs less still shows its first frame only.
    public static let smallestAnimationScale = 0.25

    /// Every frame of the animated GIF or WebP in `bytes`, scaled to the size
    /// that covers `request`'s output (or smaller, to fit `animationByteLimit`);
    /// nil when `bytes` are not an animation of more than one frame, when its
    /// frames cannot fit even at `smallestAnimationScale`, or when composing it
    /// would hold more than `wholePictureByteLimit` (it then plays as its first
    /// frame, the still the slide already has). Damage in any frame is an error.
    static func animation(_ bytes: [UInt8], request: SlideRequest) throws(SlideError) -> AnimatedFrames? {
        if WebPDecoder.hasSignature(bytes) {
            do throws(WebPError) {
                return try webpAnimation(bytes, request: request)
            } catch .tooLargeToDecode {
                // libwebp's canvases for a canvas this large would pass the limit: the still plays.
                return nil
            } catch {
                throw SlideError(file: request.file, reason: .webp(error))
            }
        }
        if GIFDecoder.hasSignature(bytes) {
            do throws(GIFError) {
                return try gifAnimation(bytes, request: request)
            } catch .tooLargeToDecode {
                // Its screen, kept twice, over the limit: the still plays.
                return nil
            } catch {
                throw SlideError(file: request.file, reason: .gif(error))
            }
        }
        return nil
    }

    /// The size each frame of a `frameCount`-frame animation on a `canvas` is
    /// stored at: what covers the visible area, shrunk to fit
    /// `animationByteLimit`; nil when even `smallestAnimationScale` does not fit.
    static func storedFrameSize(canvas: PixelSize, orientation: ExifOrientation, frameCount: Int, request: SlideRequest) -> PixelSize? {
        let target = SlideFramer.decodeTarget(picture: orientation.displaySize(forStored: canvas), orientation: orientation,
                                              output: request.output, fit: request.fit)
        var size = canvas.scaledDown(covering: target)
        let bytes = Double(size.pixelCount) * 4 * Double(max(frameCount, 1))
        guard bytes > Double(animationByteLimit) else { return size }
        let scale = (Double(animationByteLimit) / bytes).squareRoot()
        guard scale >= smallestAnimationScale else { return nil }
        size = PixelSize(width: max(1, Int(Double(size.width) * scale)), height: max(1, Int(Double(size.height) * scale)))
        return size
    }

    /// Copies (or scales) one composed canvas into a frame of `size` of its own.
    private static func stored(_ canvas: PixelImage, size: PixelSize) -> PixelImage {
        guard size != canvas.size else {
            let copy = PixelImage(size: size)
            _ = copy.pixels.update(from: UnsafeBufferPointer(canvas.pixels))
            return copy
        }
        return AreaResampler.resample(canvas, to: size)
    }

    private static func webpAnimation(_ bytes: [UInt8], request: SlideRequest) throws(WebPError) -> AnimatedFrames? {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(WebPError) -> AnimatedFrames? in
                let info = try WebPDecoder.info(raw)
                guard info.isAnimated, let count = WebPDecoder.animationFrameCount(raw), count > 1,
                      let size = storedFrameSize(canvas: info.size, orientation: info.orientation, frameCount: count, request: request)
                else { return nil }
                var frames: [PixelImage] = [], durations: [Duration] = []
                let decoded = try WebPDecoder.decodeAnimation(raw, maxPixels: request.maxPixels, decoderByteLimit: wholePictureByteLimit) { canvas, duration in
                    frames.append(stored(canvas, size: size))
                    durations.append(duration)
                    return frames.count < count
                }
                return AnimatedFrames(frames: frames, orientation: info.orientation,
                                      timeline: AnimationTimeline(durations: durations, plays: decoded.plays))
            }
        }
        return try result.get()
    }

    private static func gifAnimation(_ bytes: [UInt8], request: SlideRequest) throws(GIFError) -> AnimatedFrames? {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(GIFError) -> AnimatedFrames? in
                // Counting the frames skips their data without decoding it.
                let count = try GIFDecoder.frameCount(raw)
                guard count > 1, let size = storedFrameSize(canvas: try GIFDecoder.info(raw).size, orientation: .up,
                                                            frameCount: count, request: request)
                else { return nil }
                var frames: [PixelImage] = [], durations: [Duration] = []
                let decoded = try GIFDecoder.decodeAnimation(raw, maxPixels: request.maxPixels, decoderByteLimit: wholePictureByteLimit) { canvas, duration in
                    frames.append(stored(canvas, size: size))
                    durations.append(duration)
                    return frames.count < count
                }
                guard frames.count > 1 else { return nil }
                return AnimatedFrames(frames: frames, orientation: .up, timeline: AnimationTimeline(durations: durations, plays: decoded.plays))
            }
        }
        return try result.get()
    }
}
