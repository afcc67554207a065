import FoundationEssentials
import Hummingbird
import Logging
import VitrineAPI
import VitrineConfig
import VitrineRuntime

/// The pictures the decoding sandbox refused: tried again when an operator asks.
struct PictureRoutes {
    let link: any DisplayLoopLink
    let slides: any SlideDecoder
    let logger: Logger

    func add(to router: RecordingRouter<APIRequestContext>) {
        // The refusals that hold pictures back are forgotten, and every loop decodes its failed slides anew.
        router.post("/api/v1/pictures/retry") { request, _ in
            let file = try await RequestBodyDecoder.decode(PictureRetryBody.self, from: request).file
            let retried = slides.retry(file: file)
            link.send(.retryFailedPictures)
            logger.notice("an operator asked for \(file ?? "every refused picture") to be tried again (\(retried) held back)")
            return try JSONResponse.make(.accepted, encoding: PictureRetryAcceptedBody(retried: retried))
        }
    }
}
