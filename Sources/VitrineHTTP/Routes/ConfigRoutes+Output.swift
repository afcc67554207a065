import Hummingbird
import VitrineConfig
import VitrineCore
import VitrineState

/// `PUT /api/v1/config?output=NAME`: a push that changes what one output
/// shows and nothing else. The output's group (`OutputAddress`) is led by an
/// output whose local `outputs` entry names a playlist of its own, P; the
/// pushed document's `slides` (its only key: `PlaylistPush`) become P's
/// slides in the stored configuration, and the result is stored and applied
/// as a whole push is: a new version, If-Match, rollback, the same events,
/// each group shown its part (so only the groups showing P change).
extension ConfigRoutes {
    /// The playlist of its own that the group led by `group.name`
    /// shows, from the local file's `outputs`; 409 when it shows the kiosk's
    /// programme, which other outputs may share.
    func ownPlaylist(_ group: OutputGroupLink) throws -> String {
        let layout = apply.store.current.configuration.outputs
        guard let name = group.name else { throw Self.followsTheProgramme("this output", sharing: []) }
        if case .playlist(let playlist)? = layout?.output(named: name)?.content { return playlist }
        // The others showing the programme: those listed outside this group whose picture (a mirror's source's) has no playlist.
        let sharing = (layout?.outputs ?? []).filter { output in
            !group.answers(to: output.name) && layout?.output(named: output.mirrored ?? output.name)?.content == .programme
        }.map(\.name)
        throw Self.followsTheProgramme(name, sharing: sharing)
    }

    static func followsTheProgramme(_ name: String, sharing: [String]) -> APIError {
        let shared = sharing.isEmpty ? "" : ", as \(sharing.joined(separator: ", ")) \(sharing.count == 1 ? "does" : "do") too"
        var error = APIError(.conflict, """
            \(name) has no playlist of its own: it shows the kiosk's programme (slides, or the schedule)\(shared). \
            To push to it alone, give it one in the kiosk's local configuration file (outputs: - {name: \(name), playlist: NAME}, \
            with NAME in schedule.playlists); or push the whole configuration without output=
            """, issues: [ConfigIssue(path: "output", message: "\(name) follows the programme: it has no playlist of its own in outputs")])
        error.outputs = sharing
        return error
    }

    /// The pushed document's slides as `playlist`'s, checked as a whole push's
    /// slides are (their paths, then their pictures' headers), stored over the
    /// current configuration under the store's lock, and applied.
    func put(_ document: ComposedConfiguration, toOutput playlist: String, ifMatch: String?) async throws -> Response {
        let push: PlaylistPush
        do {
            push = try PlaylistPush(document, playlist: playlist)
        } catch {
            let others = error.issues.map(\.path).filter { $0 != PlaylistPush.key && !$0.isEmpty }
            throw others.isEmpty ? Self.notValid(error)
                : APIError(.unprocessableContent, PlaylistPush.onlySlides(changing: others), issues: error.issues)
        }
        let merged = try Self.applying(push, to: apply.store.current)
        let named = push.pictures(in: merged)
        let issues = apply.store.pushIssues(merged, sections: [], named: named)
        guard issues.isEmpty else { throw Self.cannotBePushed(issues) }
        try await checkPictures(in: merged, named: named)
        let change = try await offload {
            // Again on the configuration current under the lock: another push may have changed the rest since.
            try apply.store.replace(ifMatch: ifMatch) { current in try Self.applying(push, to: current) }
        }
        return try await applied(change)
    }

    /// `stored` with the pushed slides as the playlist's; its problems a 422.
    static func applying(_ push: PlaylistPush, to stored: StoredConfiguration) throws -> KioskConfiguration {
        do {
            return try push.applied(toStored: stored.json, baseDirectory: stored.configuration.baseDirectory)
        } catch {
            throw notValid(error)
        }
    }
}
