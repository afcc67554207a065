import VitrineAPI

extension PlayUploadBody {
    /// The API's description of the uploader's progress.
    package init(_ status: PlayUploader.Status) {
        self.init(url: status.url, pending: status.pending, uploaded: status.uploaded, failures: status.failures,
                  dropped: status.dropped, lastError: status.lastError)
    }
}
