internal import CLibAV
import Glibc
import VitrineCore

/// A video file's first video stream, demuxed and decoded in order, each
/// frame scaled to the kiosk's pixels as it is asked for.
///
/// It reads through a descriptor it is given (an `AVIOContext` over `read`
/// and `lseek`, `vitrine_avio_open_descriptor`), never a path: the sandboxed
/// video helper that uses it has no file system. The descriptor stays the
/// caller's. One reader owns its FFmpeg contexts, which `deinit` frees in the
/// order FFmpeg requires (the demuxer before the custom I/O it reads through).
///
/// Not thread-safe: one thread drives a reader (the helper has one).
public final class VideoFileReader {
    /// What the file holds (`avformat_find_stream_info`), checked against the limits.
    public let info: VideoInfo

    private let descriptorBox: UnsafeMutablePointer<Int32>
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let streamIndex: Int32
    private let timeBase: AVRational
    private let startTime: Int64
    private let maxPixels: Int
    private let scaler = VideoFrameScaler()
    private var draining = false
    private var lastTimestamp: Duration?
    /// Packets the decoder refused in a row; a few are concealed, as players do.
    private var refusedPackets = 0
    /// Frames the decoder could not rebuild since it last gave one back. Apart
    /// from `refusedPackets`, which each accepted packet resets: a stream whose
    /// every frame fails would otherwise be read to its end inside one call.
    private var damagedFrames = 0

    /// The longest run of damaged packets that is skipped before the video is given up.
    static let damagedPacketLimit = 16

    /// Opens the file on `descriptor` (`avformat_open_input`,
    /// `avformat_find_stream_info`, `av_find_best_stream`, `avcodec_open2`).
    ///
    /// - Parameters:
    ///   - maxPixels: the largest picture accepted; a stream whose headers say
    ///     more is refused before a frame is decoded.
    ///   - threads: the decoder's threads (frame and slice threading).
    public init(descriptor: Int32, maxPixels: Int, threads: Int = 2) throws(VideoError) {
        av_log_set_level(AV_LOG_QUIET)
        self.maxPixels = maxPixels
        let box = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        box.initialize(to: descriptor)
        // Until every stored property is set, failures free what was made by hand.
        var io: UnsafeMutablePointer<AVIOContext>? = vitrine_avio_open_descriptor(box, 64 << 10)
        var format: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        func fail(_ error: VideoError) -> VideoError {
            avformat_close_input(&format)
            vitrine_avio_close(&io)
            box.deallocate()
            return error
        }
        guard let openedIO = io, let allocated = format else {
            throw fail(.outOfMemory("avio_alloc_context"))
        }
        allocated.pointee.pb = openedIO
        allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        var status = avformat_open_input(&format, nil, nil, nil)
        // On failure avformat_open_input has freed the context (not the custom I/O).
        guard status >= 0, let format else {
            let error = VideoError(code: status, call: "avformat_open_input")
            throw fail(status == vitrine_averror_invaliddata()
                       ? .notAVideo("no demuxer can read it: not a video, or one damaged or cut short before its index (\(VideoError.words(for: status)))")
                       : error)
        }
        status = avformat_find_stream_info(format, nil)
        guard status >= 0 else { throw fail(VideoError(code: status, call: "avformat_find_stream_info")) }

        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
        if index == vitrine_averror_decoder_not_found() {
            let any = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
            let name = any >= 0 ? String(cString: avcodec_get_name(format.pointee.streams[Int(any)]!.pointee.codecpar.pointee.codec_id)) : "unknown"
            throw fail(.unsupportedCodec(name))
        }
        guard index >= 0, let decoder, let stream = format.pointee.streams[Int(index)] else {
            throw fail(index < 0 ? VideoError(code: index, call: "av_find_best_stream") : .noVideoStream)
        }
        let parameters = stream.pointee.codecpar.pointee
        let size = PixelSize(width: Int(parameters.width), height: Int(parameters.height))
        guard size.width > 0, size.height > 0 else { throw fail(.corrupt("the stream's headers give no picture size")) }
        guard size.pixelCount <= maxPixels else { throw fail(.tooManyPixels(size: size, limit: maxPixels)) }

        guard let context = avcodec_alloc_context3(decoder) else { throw fail(.outOfMemory("avcodec_alloc_context3")) }
        status = avcodec_parameters_to_context(context, stream.pointee.codecpar)
        if status >= 0 {
            context.pointee.thread_count = Int32(max(1, threads))
            context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
            context.pointee.pkt_timebase = stream.pointee.time_base
            status = avcodec_open2(context, decoder, nil)
        }
        guard status >= 0 else {
            var freed: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&freed)
            throw fail(VideoError(code: status, call: "avcodec_open2"))
        }
        guard let packet = av_packet_alloc(), let frame = av_frame_alloc() else {
            var freed: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&freed)
            throw fail(.outOfMemory("av_frame_alloc"))
        }

        let container = format.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        let codecName = String(cString: avcodec_get_name(parameters.codec_id))
        let rate = Self.rate(stream.pointee.avg_frame_rate) ?? Self.rate(stream.pointee.r_frame_rate)
        // The video stream's own length first: the container's is that of its
        // longest stream, and a soundtrack that runs on past the picture would
        // leave the slide standing on its last frame.
        let durationFound: Duration?
        if stream.pointee.duration != vitrine_av_nopts_value(), stream.pointee.duration > 0 {
            durationFound = .nanoseconds(av_rescale_q(stream.pointee.duration, stream.pointee.time_base, AVRational(num: 1, den: 1_000_000_000)))
        } else if format.pointee.duration != vitrine_av_nopts_value(), format.pointee.duration > 0 {
            durationFound = .microseconds(format.pointee.duration)
        } else {
            durationFound = nil
        }
        // A container may claim any length (a crafted mvhd, 292 years): more than a day is taken as unknown.
        let duration = durationFound.flatMap { $0 > .zero && $0 <= .seconds(24 * 3600) ? $0 : nil }
        let orientation = Self.orientation(of: stream)
        let displaySize = orientation.displaySize(forStored: Self.aspectCorrected(size, parameters.sample_aspect_ratio))
        let hasAudio = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, index, nil, 0) >= 0
        // The stream's own (an MP4's sizes over its length, a Matroska's tag), else the file's,
        // which avformat_find_stream_info reckons from its size and length when the container gives none.
        let bitRate = [parameters.bit_rate, format.pointee.bit_rate].first { $0 > 0 }.map { Int($0) }
        info = VideoInfo(container: container, codec: codecName, size: size, displaySize: displaySize,
                         orientation: orientation, frameRate: rate, duration: duration, hasAudio: hasAudio,
                         bitRate: bitRate, decoder: String(cString: decoder.pointee.name))
        descriptorBox = box
        self.io = openedIO
        self.format = format
        self.codec = context
        self.packet = packet
        self.frame = frame
        streamIndex = index
        timeBase = stream.pointee.time_base
        startTime = stream.pointee.start_time == vitrine_av_nopts_value() ? 0 : stream.pointee.start_time
    }

    deinit {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        // The demuxer first: it may still read through the I/O context while closing.
        avformat_close_input(&format)
        vitrine_avio_close(&io)
        descriptorBox.deallocate()
    }

    private static func rate(_ value: AVRational) -> Double? {
        guard value.num > 0, value.den > 0 else { return nil }
        let rate = Double(value.num) / Double(value.den)
        // Containers that do not know write 90000 or 1000 "frames" a second.
        return rate <= 240 ? rate : nil
    }

    /// The time one frame lasts, for frames whose timestamp is missing.
    private var frameInterval: Duration {
        .nanoseconds(Int64(1e9 / (info.frameRate ?? 25)))
    }

    /// Decodes the next frame and draws it into `canvas`, turned upright
    /// (`info.orientation`) and fitted with `fit` on `background`; returns its presentation time from the stream's
    /// start, or nil at the end of the video.
    ///
    /// `avcodec_receive_frame` and `avcodec_send_packet` in FFmpeg's
    /// send/receive loop: a decoder with frame threads holds several packets
    /// before it gives the first frame back, and gives the rest back when it is
    /// drained with an empty packet at the end of the file.
    public func nextFrame(into canvas: PixelCanvas, fit: FitMode, background: RGBAColor) throws(VideoError) -> Duration? {
        guard let frame = try receiveFrame() else { return nil }
        defer { av_frame_unref(frame) }
        let size = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        // A stream may change its size midway; the limit holds for every frame.
        guard size.pixelCount <= maxPixels else { throw .tooManyPixels(size: size, limit: maxPixels) }
        try scaler.draw(frame, shownSize: shownSize(of: frame), orientation: info.orientation, into: canvas, fit: fit,
                        background: background)
        let timestamp: Duration
        let raw = frame.pointee.best_effort_timestamp
        if raw != vitrine_av_nopts_value() {
            // Never before the start (a pts under start_time), never past a day (a crafted pts).
            let nanoseconds = av_rescale_q(raw - startTime, timeBase, AVRational(num: 1, den: 1_000_000_000))
            timestamp = .nanoseconds(min(max(0, nanoseconds), 24 * 3_600 * 1_000_000_000))
        } else {
            timestamp = lastTimestamp.map { $0 + frameInterval } ?? .zero
        }
        lastTimestamp = timestamp
        return timestamp
    }

    /// Goes back to the first frame, for a video that loops (`av_seek_frame`
    /// to the stream's start, then `avcodec_flush_buffers`).
    public func rewind() throws(VideoError) {
        guard let format, let codec else { return }
        let status = av_seek_frame(format, streamIndex, startTime, AVSEEK_FLAG_BACKWARD)
        guard status >= 0 else { throw VideoError(code: status, call: "av_seek_frame") }
        avcodec_flush_buffers(codec)
        draining = false
        lastTimestamp = nil
        refusedPackets = 0
        damagedFrames = 0
    }

    /// The frame's size as shown, before it is turned: its stored size with
    /// its own sample aspect ratio applied (a stream may change either midway).
    private func shownSize(of frame: UnsafeMutablePointer<AVFrame>) -> PixelSize {
        Self.aspectCorrected(PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height)),
                             frame.pointee.sample_aspect_ratio)
    }

    private static func aspectCorrected(_ size: PixelSize, _ aspect: AVRational) -> PixelSize {
        var size = size
        if aspect.num > 0, aspect.den > 0, aspect.num != aspect.den {
            size.width = max(1, Int((Double(size.width) * Double(aspect.num) / Double(aspect.den)).rounded()))
        }
        return size
    }

    /// How the stream's frames turn upright: its display matrix
    /// (`vitrine_stream_display_matrix`, read by `av_display_rotation_get`),
    /// or as stored when it has none, or one that is not a quarter turn.
    private static func orientation(of stream: UnsafeMutablePointer<AVStream>) -> ExifOrientation {
        guard let matrix = vitrine_stream_display_matrix(stream) else { return .up }
        let entries = Array(UnsafeBufferPointer(start: matrix, count: 9))
        return ExifOrientation(displayMatrix: entries, counterClockwiseDegrees: av_display_rotation_get(matrix)) ?? .up
    }

    private func receiveFrame() throws(VideoError) -> UnsafeMutablePointer<AVFrame>? {
        guard let format, let codec, let packet, let frame else { return nil }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 {
                refusedPackets = 0
                damagedFrames = 0
                return frame
            }
            if received == vitrine_averror_eof() { return nil }
            if received == vitrine_averror_invaliddata() {
                // A frame the decoder could not rebuild (a damaged slice it found
                // only once decoding): concealed by going on, as a damaged packet is.
                damagedFrames += 1
                guard damagedFrames <= Self.damagedPacketLimit else {
                    throw .corrupt("\(damagedFrames) damaged frames in a row (avcodec_receive_frame: \(VideoError.words(for: received)))")
                }
                continue
            }
            guard received == vitrine_averror_eagain() else { throw VideoError(code: received, call: "avcodec_receive_frame") }
            guard !draining else { return nil }
            let read = av_read_frame(format, packet)
            if read < 0 {
                // The end of the file, or a read error past what was decoded: drain what the decoder holds.
                guard read == vitrine_averror_eof() || format.pointee.pb.pointee.eof_reached != 0 else {
                    throw VideoError(code: read, call: "av_read_frame")
                }
                draining = true
                _ = avcodec_send_packet(codec, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent == vitrine_averror_invaliddata() {
                // One damaged packet is concealed by skipping it, as players do; a run of them ends the video.
                refusedPackets += 1
                guard refusedPackets <= Self.damagedPacketLimit else {
                    throw .corrupt("\(refusedPackets) damaged packets in a row (avcodec_send_packet: \(VideoError.words(for: sent)))")
                }
                continue
            }
            guard sent >= 0 || sent == vitrine_averror_eagain() else { throw VideoError(code: sent, call: "avcodec_send_packet") }
            refusedPackets = 0
        }
    }
}
