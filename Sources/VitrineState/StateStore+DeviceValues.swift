import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// Values of this device alone, kept beside the configuration (a channel's per-device rotation).
extension StateStore {
    static let deviceFileName = "device.json"

    /// Records the output rotation a channel sets for this device (nil: none,
    /// the local file's own) in device.json, which the next start reads: the
    /// display's rotation is set when the kiosk starts, as for an edit of the
    /// local file. Returns whether it differs from the rotation in force, so
    /// takes a restart to show.
    @discardableResult
    public func setDeviceRotation(_ rotation: Int?) throws -> Bool {
        try requireWritable()
        let path = directory + "/" + Self.deviceFileName
        // None is written as {} (durably, as a value is) rather than by removing the file.
        if Self.deviceRotation(in: directory) != rotation, rotation != nil || access(path, F_OK) == 0 {
            try FileIO.writeAtomically(Array((rotation.map { "{\"rotation\": \($0)}" } ?? "{}").utf8) + [0x0A], to: path, mode: 0o640)
        }
        return (rotation ?? fileRotation) != local.output.rotation
    }

    /// The rotation device.json records, if it holds one.
    static func deviceRotation(in directory: String) -> Int? {
        guard let bytes = try? FileIO.read(directory + "/" + deviceFileName, limit: 4096),
              let object = try? JSONValue(parsing: bytes),
              let rotation = object["rotation"]?.int, [0, 90, 180, 270].contains(rotation) else { return nil }
        return rotation
    }
}
