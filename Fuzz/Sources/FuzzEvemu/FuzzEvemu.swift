// libFuzzer target: an evemu-record text through EvemuRecording.parse, then its
// events through the touch pipeline exactly as `vitrine touch replay` runs them
// (Sources/VitrineRuntime/Input/TouchReplay.swift): classification,
// TouchDeviceModel, GestureRecognizer and CarouselEngine on virtual time.
//
// TouchReplay itself lives in VitrineRuntime, which depends on SwiftNIO and
// AsyncHTTPClient; building those with the fuzzer and address sanitizer would
// take far longer than the fuzzing. So this drives the same pure pieces
// (VitrineEvdev + VitrineCore) the way TouchReplay.run does, with
// TouchConfiguration's defaults written out (VitrineConfig is not linked either).
// Keep it in step with TouchReplay.run when that changes.
import VitrineCore
import VitrineEvdev

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let recording = try? EvemuRecording.parse(text) else { return 0 }
    // The rotation and output vary with the input's length, so that every
    // mapping is exercised without changing what the parser reads.
    let rotation = DisplayRotation.allCases[size % DisplayRotation.allCases.count]
    let output = size / 4 % 2 == 0 ? PixelSize(width: 1920, height: 1080) : PixelSize(width: 800, height: 1280)
    replay(recording, output: output, rotation: rotation, slideCount: 1 + size % 5)
    return 0
}

/// TouchReplay.run without its output lines.
private func replay(_ recording: EvemuRecording, output: PixelSize, rotation: DisplayRotation, slideCount: Int) {
    guard let kind = TouchDeviceClassification(recording.device).kind else { return }
    // TouchInputSettings.mapper(for:kind:)
    let multitouch = kind == .multitouchA || kind == .multitouchB
    let device = recording.device
    let x = device.axes[multitouch ? EvdevCode.absMTPositionX : EvdevCode.absX] ?? AxisRange(minimum: 0, maximum: 1)
    let y = device.axes[multitouch ? EvdevCode.absMTPositionY : EvdevCode.absY] ?? AxisRange(minimum: 0, maximum: 1)
    let mapper = TouchCoordinateMapper(xAxis: x, yAxis: y, output: output, rotation: rotation,
                                       calibration: TouchCoordinateMapper.identityCalibration)
    var model = TouchDeviceModel(kind: kind, mapper: mapper)
    // TouchReplay.gestureSettings with TouchConfiguration's defaults.
    let scale = model.mapper.pixelsPerMillimetre ?? 96 / 25.4
    var settings = GestureSettings(outputWidth: output.width)
    settings.tapMaxDuration = .milliseconds(250)
    settings.tapSlop = 5 * scale
    settings.pageFraction = 0.25
    settings.flickVelocity = 150 * scale
    var recognizer = GestureRecognizer(settings: settings)
    let engineSettings = CarouselSettings.uniform(
        count: slideCount, rotation: RotationPolicy(autoplay: false, interval: .seconds(5), resumeDelayAfterTouch: .seconds(3)))
    let start = recording.events.first?.time ?? .zero
    var engine = CarouselEngine(settings: engineSettings, start: start)
    var clock = start
    // TouchReplay steps virtual time by 5 ms; a recording spanning hours would
    // make that millions of steps per input, so the fuzzer caps the steps
    // (a timeout here would say nothing about the code): 20 s of virtual time.
    var steps = 0
    func advance(to time: MonotonicInstant) {
        while clock < time && steps < 4_000 {
            clock = min(clock + .milliseconds(5), time)
            steps += 1
            _ = engine.advance(to: clock)
        }
        if clock < time {
            clock = time
            _ = engine.advance(to: clock)
        }
    }
    for raw in recording.events {
        advance(to: raw.time)
        for touchEvent in model.handle(raw) {
            for gesture in recognizer.handle(touchEvent) {
                engine.handle(gesture, at: raw.time, settings: recognizer.settings)
                _ = engine.takeEvents()
            }
        }
        _ = engine.scene(at: raw.time)
    }
    advance(to: (recording.events.last?.time ?? start) + .seconds(2))
}
