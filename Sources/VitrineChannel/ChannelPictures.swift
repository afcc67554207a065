import VitrineConfig

extension KioskConfiguration {
    /// The same configuration with every picture (slides, the schedule's
    /// playlists, the placeholder) replaced by `transform` of its path.
    public func replacingPicturePaths(_ transform: (String) -> String) -> KioskConfiguration {
        var configuration = self
        for index in configuration.slides.indices {
            configuration.slides[index].path = transform(configuration.slides[index].path)
        }
        if var schedule = configuration.schedule {
            for playlist in schedule.playlists.indices {
                for slide in schedule.playlists[playlist].slides.indices {
                    schedule.playlists[playlist].slides[slide].slide.path = transform(schedule.playlists[playlist].slides[slide].slide.path)
                }
            }
            configuration.schedule = schedule
        }
        configuration.placeholder = configuration.placeholder.map(transform)
        return configuration
    }
}

extension ChannelManifest {
    /// The blobs the configuration names (a manifest may list more), each once,
    /// in the order the configuration names them.
    public var picturesToShow: [ChannelBlob] {
        var seen = Set<String>()
        var pictures: [ChannelBlob] = []
        for path in configuration.allSlides.map(\.slide.path) + [configuration.placeholder].compactMap({ $0 }) {
            if let blob = blob(for: path), seen.insert(blob.sha256).inserted { pictures.append(blob) }
        }
        return pictures
    }

    /// The configuration as a kiosk stores it: each `blob:<sha256>` becomes
    /// `asset:<sha256>`, the asset the blob is stored as (an asset's id is the
    /// SHA-256 of its bytes, as a blob's name is). URLs stay as they are. A
    /// `sync: true` without an epoch of its own gets the manifest's `epoch`,
    /// which the stored configuration then keeps over restarts.
    public var configurationWithAssets: KioskConfiguration {
        var stored = configuration.replacingPicturePaths { path in
            path.hasPrefix(ChannelBlob.referencePrefix)
                ? SlideSource.assetPrefix + path.dropFirst(ChannelBlob.referencePrefix.count) : path
        }
        if var sync = stored.sync, sync.epoch == nil, let epoch {
            sync.epoch = epoch
            stored.sync = sync
        }
        return stored
    }
}
