import FoundationEssentials
import Glibc
import Logging
import NIOPosix
import Synchronization
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineUpdate
import VitrineState

/// A verified version's pictures downloaded and checked, then the version stored and handed to the kiosk.
extension ChannelFollower {
    /// Downloads one blob into the asset store, checks it against the
    /// manifest and keeps it as the asset of its SHA-256. False (with the
    /// refusal or error recorded) if not.
    ///
    /// The bytes go to a staging file as they arrive (`AssetUpload`), hashed
    /// on the way, so a blob of any size (a video) costs 256 KiB of memory;
    /// the disk's floor bounds what it may take there. A download cut short
    /// (the origin's deadline, `channel.timeout`, a dropped link) keeps what
    /// arrived, and the next poll asks for the rest (`ChannelOrigin.download`).
    ///
    /// `resuming` false drops any part first: the second try of a blob whose
    /// resumed whole did not match.
    func download(_ blob: ChannelBlob, of manifest: ChannelManifest, resuming: Bool = true) async -> Bool {
        let url = settings.url(of: blob.path)
        let upload: AssetUpload
        do {
            upload = try await NIOThreadPool.singleton.runIfActive { [store] in
                let upload = try AssetUpload(in: store.assets, resuming: Self.partialKey(of: blob))
                if !resuming && upload.size > 0 { try upload.restart() }
                return upload
            }
        } catch {
            fail("cannot stage \(url) in \(store.assets.directory): \(error)")
            return false
        }
        let resumedFrom = upload.size
        if resumedFrom > 0 { logger.info("channel \(settings.url): resuming \(blob.path) after \(resumedFrom) of \(blob.size) bytes") }
        do {
            guard try await origin.download(url, into: upload, size: blob.size) else {
                if upload.size == 0 { upload.discard() }
                fail("\(url): the origin does not have this picture of version \(manifest.version) (yet)")
                return false
            }
        } catch is ChannelOrigin.TooLarge {
            upload.discard()
            record(.refused(.blobMismatch(.tooLarge(blob)), version: manifest.version))
            return false
        } catch {
            // Nothing arrived: no part to keep.
            if upload.size == 0 { upload.discard() }
            // Further than before: the next attempt comes soon, not after a growing backoff,
            // so a large video over a slow link gets there in attempts of `channel.timeout`.
            record(upload.size > resumedFrom ? .interrupted("\(error)") : .unreachable("\(error)"))
            return false
        }
        do {
            let digest = try await NIOThreadPool.singleton.runIfActive { try upload.finish() }
            try blob.check(sha256: digest, size: UInt64(upload.size))
        } catch let mismatch as BlobMismatch {
            // Never stored: the asset store holds only what the manifest promised.
            upload.discard()
            if resumedFrom > 0 {
                // The kept part may be what is wrong (the origin's file was
                // replaced while it was being fetched): once more, whole.
                logger.warning("channel \(settings.url): \(blob.path) resumed after \(resumedFrom) bytes does not match the manifest (\(mismatch)); downloading it again whole")
                return await download(blob, of: manifest, resuming: false)
            }
            record(.refused(.blobMismatch(mismatch), version: manifest.version))
            return false
        } catch {
            fail("cannot store \(url) in \(store.assets.directory): \(error)")
            return false
        }
        let maxPixels = manifest.configuration.decode.maxPixels
        let image: InspectedImage
        do {
            let pictures = self.pictures
            // A picture is decoded in a helper, a video opened in a video helper, from the staged file.
            let digest = blob.sha256
            image = try await NIOThreadPool.singleton.runIfActive {
                try pictures.inspect(download: upload.path, sha256: digest, named: url, maxPixels: maxPixels)
            }
        } catch let failure as ImageInspection.Failure {
            let reason: String
            switch failure {
            case .notAnImage(let text), .undecodable(let text), .overPixelLimit(let text), .overBitrateLimit(let text): reason = text
            }
            upload.discard()
            record(.refused(.blobUnusable(path: blob.path, reason: reason), version: manifest.version))
            return false
        } catch {
            fail("cannot inspect \(url): \(error)")
            return false
        }
        do {
            let name = "channel v\(manifest.version) \(blob.sha256.prefix(12))"
            _ = try await NIOThreadPool.singleton.runIfActive { [store] in try store.assets.adopt(upload, image: image, name: name) }
        } catch {
            fail("cannot store \(url) in \(store.assets.directory): \(error)")
            return false
        }
        return true
    }

    /// What names a blob's partial download in the asset directory.
    static func partialKey(of blob: ChannelBlob) -> String { partialKeyPrefix + blob.sha256 }
    static let partialKeyPrefix = "blob-"

    /// Stores the version and hands it to the kiosk.
    ///
    /// The order is what makes a SIGKILL at any moment leave the previous
    /// version or the new one, never a mix:
    /// 1. every picture is in the asset store already, each written to a
    ///    temporary file, fsynced and renamed (AssetStore), so config.json
    ///    never names a picture that is not durable;
    /// 2. config.json is replaced (StateStore: config.previous.json, then
    ///    config.json, each temporary file, fsync, rename, fsync of the
    ///    directory); that rename is the switch;
    /// 3. only then is the version recorded (channel-state.json, the same way).
    /// Killed between 2 and 3, the kiosk restarts on the new configuration with
    /// the old version recorded; the configuration's version differs from the
    /// record's, so the same version is accepted once more and recorded, nothing
    /// older. Recording first would be worse: killed before 2, the kiosk would
    /// believe the version applied and never apply it.
    ///
    /// `manifest` is this kiosk's selection (`ChannelManifest.selecting`). A
    /// version whose selection stores the same configuration (another group's
    /// playlist changed) is recorded as applied but not handed to the display.
    /// The device's rotation goes to device.json, and like its touch
    /// calibration takes effect at the next start.
    func apply(_ manifest: ChannelManifest, pair: FetchedPair) async {
        let configuration = manifest.configurationWithAssets
        let rotation = settings.device.flatMap { manifest.devices[$0]?.rotation }
        let change: StateStore.Change
        let restartFor: [String]
        do {
            (change, restartFor) = try await NIOThreadPool.singleton.runIfActive { [store] in
                let touchBefore = store.current.configuration.touch
                let change = try store.replace(with: configuration, ifMatch: nil)
                var restartFor = try store.setDeviceRotation(rotation) ? ["output.rotation \(rotation.map(String.init) ?? "from the local file")"] : []
                let touch = change.current.configuration.touch
                if touch.calibration != touchBefore.calibration || touch.devices != touchBefore.devices { restartFor.append("touch calibration") }
                return (change, restartFor)
            }
        } catch {
            record(.applyFailed("cannot store version \(manifest.version) in \(store.directory): \(error)"))
            return
        }
        if !restartFor.isEmpty {
            logger.notice("channel \(settings.url): version \(manifest.version) sets \(restartFor.joined(separator: " and ")) for this device\(settings.device.map { " (\($0))" } ?? ""); it takes effect at the next start of vitrine")
        }
        let applied = AppliedChannelVersion(
            version: manifest.version, published: manifest.published, expires: manifest.expires, appliedAt: wallClock(),
            manifestETag: pair.manifestETag, signatureETag: pair.signatureETag, configurationVersion: change.current.version,
            playsUpload: manifest.playsUpload, rootVersion: snapshot.root?.version ?? 0)
        let record = ChannelFollowRecord(url: settings.url(of: ""), applied: applied)
        do {
            try await NIOThreadPool.singleton.runIfActive { [recordPath] in try FileIO.writeAtomically(record.json, to: recordPath, mode: 0o640) }
        } catch {
            // The configuration is stored and shows; only the record is missing, so
            // after a restart this version is accepted once more (see above).
            logger.error("cannot record channel version \(manifest.version) in \(recordPath): \(error)")
        }
        await leaveUpdateRequest(pair, version: manifest.version)
        if change.changed { applyHandler.withLock { $0 }?.call(change.current) }
        playsUploadHandler.withLock { $0 }?.call(manifest.playsUpload)
        lastPair.withLock { $0?.settled = true }
        self.record(.applied(applied))
    }
}

extension ChannelFollower {
    /// The applied version's bytes, as signed, for the update helper, which
    /// verifies them again itself; with the root taken, when `channel.root`
    /// is set. A failure is logged: the pictures are applied all the same.
    func leaveUpdateRequest(_ pair: FetchedPair, version: UInt64) async {
        guard let outbox = updateRequests.withLock({ $0 }) else { return }
        let withRoot = !settings.rootKeys.isEmpty
        do {
            try await NIOThreadPool.singleton.runIfActive { [rootPath, rootSignaturePath] in
                var request = UpdateRequest(manifest: pair.manifest, signature: pair.signature)
                if withRoot {
                    request.root = try? FileIO.read(rootPath, limit: UpdateRequest.manifestLimit)
                    request.rootSignature = try? FileIO.read(rootSignaturePath, limit: UpdateRequest.signatureLimit)
                }
                try outbox.leave(request)
            }
        } catch {
            logger.error("channel \(settings.url): cannot leave version \(version) for the update helper in \(outbox.directory): \(error)")
        }
    }
}
