import CLibDRM
import SystemPackage
import VitrineSystem
import VitrineCore

/// An object's properties by name, with their ids and current values
/// (`drmModeObjectGetProperties`, `drmModeGetProperty`).
typealias DRMObjectProperties = [String: (id: UInt32, value: UInt64)]

extension DRMCard {
    /// The properties of one KMS object (`DRM_MODE_OBJECT_CONNECTOR`, `_CRTC`, `_PLANE`).
    func properties(of object: UInt32, type: UInt32) -> DRMObjectProperties {
        guard let list = drmModeObjectGetProperties(descriptor, object, type) else { return [:] }
        defer { drmModeFreeObjectProperties(list) }
        var result: DRMObjectProperties = [:]
        for index in 0..<Int(list.pointee.count_props) {
            guard let property = drmModeGetProperty(descriptor, list.pointee.props[index]) else { continue }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            result[name] = (property.pointee.prop_id, list.pointee.prop_values[index])
            drmModeFreeProperty(property)
        }
        return result
    }

    /// The primary plane that can feed the CRTC at `crtcIndex` (its bit in the
    /// plane's `possible_crtcs`), with its properties; nil when the driver
    /// lists none. Planes are listed only to a client that asked for
    /// universal planes (`enableAtomic`, or `enableUniversalPlanes`).
    func primaryPlane(feeding crtcIndex: Int) -> (id: UInt32, properties: DRMObjectProperties)? {
        guard let planes = drmModeGetPlaneResources(descriptor) else { return nil }
        defer { drmModeFreePlaneResources(planes) }
        for index in 0..<Int(planes.pointee.count_planes) {
            let planeID = planes.pointee.planes[index]
            guard let plane = drmModeGetPlane(descriptor, planeID) else { continue }
            let feedsCRTC = plane.pointee.possible_crtcs & (1 << UInt32(crtcIndex)) != 0
            drmModeFreePlane(plane)
            guard feedsCRTC else { continue }
            let planeProperties = properties(of: planeID, type: UInt32(DRM_MODE_OBJECT_PLANE))
            if planeProperties["type"]?.value == UInt64(DRM_PLANE_TYPE_PRIMARY) { return (planeID, planeProperties) }
        }
        return nil
    }

    /// Every plane the card lists, in its order, with the CRTCs each can feed
    /// and the one it feeds now (`drmModeGetPlaneResources`, `drmModeGetPlane`,
    /// and each plane's `type` property). Asks for universal planes first, so
    /// that primary and cursor planes are listed too; nil when the kernel
    /// refuses that.
    public func planeDescriptions() throws(DRMError) -> [DRMPlaneDescription]? {
        guard enableUniversalPlanes() else { return nil }
        let crtcIDs = try withResources { resources in (0..<Int(resources.count_crtcs)).map { resources.crtcs[$0] } }
        guard let planes = drmModeGetPlaneResources(descriptor) else {
            throw .call("drmModeGetPlaneResources", errno: .lastCall, subject: path)
        }
        defer { drmModeFreePlaneResources(planes) }
        var descriptions: [DRMPlaneDescription] = []
        for index in 0..<Int(planes.pointee.count_planes) {
            let planeID = planes.pointee.planes[index]
            guard let plane = drmModeGetPlane(descriptor, planeID) else { continue }
            let possible = plane.pointee.possible_crtcs, feeding = plane.pointee.crtc_id
            drmModeFreePlane(plane)
            let kind: DRMPlaneDescription.Kind = switch properties(of: planeID, type: UInt32(DRM_MODE_OBJECT_PLANE))["type"]?.value {
            case UInt64(DRM_PLANE_TYPE_PRIMARY): .primary
            case UInt64(DRM_PLANE_TYPE_CURSOR): .cursor
            default: .overlay
            }
            descriptions.append(DRMPlaneDescription(id: planeID, kind: kind, possibleCRTCs: possible,
                                                    feedingCRTC: feeding == 0 ? nil : crtcIDs.firstIndex(of: feeding)))
        }
        return descriptions
    }

    /// Asks to see every plane, primary and cursor ones too (`DRM_CLIENT_CAP_UNIVERSAL_PLANES`).
    func enableUniversalPlanes() -> Bool {
        drmSetClientCap(descriptor, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) == 0
    }

    /// Stops listing primary and cursor planes, so that a lease made from this
    /// card gets each CRTC's own primary and cursor plane from the kernel again.
    public func disableUniversalPlanes() {
        _ = drmSetClientCap(descriptor, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 0)
    }
}

/// One plane in full, for `vitrine doctor`: what it can feed, the pixel
/// formats it scans out, and which of the properties that let the display
/// compose (alpha, zpos, rotation, blend mode) it offers.
public struct DRMPlaneDetails: Sendable, Equatable {
    public var plane: DRMPlaneDescription
    /// DRM fourcc codes (`XR24`, `NV12`, …), in the driver's order.
    public var formats: [UInt32]
    /// Property names, sorted.
    public var properties: [String]
    /// `zpos`'s range, when the plane has one (an immutable zpos is a range of one).
    public var zpos: ClosedRange<UInt64>?
    /// The values `rotation` takes (`rotate-0`, `reflect-x`, …); empty without the property.
    public var rotations: [String]
    /// The values `pixel blend mode` takes (`None`, `Pre-multiplied`, `Coverage`).
    public var blendModes: [String]
    /// Whether `zpos` is immutable (`DRM_MODE_PROP_IMMUTABLE`): the plane's place, not a setting.
    public var zposIsFixed: Bool

    public init(plane: DRMPlaneDescription, formats: [UInt32], properties: [String], zpos: ClosedRange<UInt64>?, rotations: [String],
                blendModes: [String], zposIsFixed: Bool = false) {
        self.plane = plane
        self.formats = formats
        self.properties = properties
        self.zpos = zpos
        self.rotations = rotations
        self.blendModes = blendModes
        self.zposIsFixed = zposIsFixed
    }

    /// The plane as the plane planner sees it: the formats Vitrine scans
    /// out, `alpha`, and its stacking (none, a fixed `zpos`, or a range the commit sets).
    public var displayPlane: DisplayPlane {
        let kind: DisplayPlane.Kind = switch plane.kind {
        case .primary: .primary
        case .overlay: .overlay
        case .cursor: .cursor
        }
        let stacking: DisplayPlane.StackingOrder = switch zpos {
        case nil: .implicit
        case let range? where zposIsFixed: .fixed(Int(clamping: range.lowerBound))
        case let range?: .adjustable(Int(clamping: range.lowerBound)...Int(clamping: range.upperBound))
        }
        return DisplayPlane(id: plane.id, kind: kind, formats: Set(formats.compactMap(ScanoutFormat.init(fourcc:))),
                            hasAlpha: hasAlpha, stacking: stacking)
    }

    public var hasAlpha: Bool { properties.contains("alpha") }

    /// A fourcc code as its four letters: 0x34325258 is `XR24`.
    public static func fourcc(_ code: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8((code >> (8 * $0)) & 0xff) }, as: UTF8.self)
    }
}

extension DRMCard {
    /// Every plane with its formats and composing properties
    /// (`drmModeGetPlane`, `drmModeObjectGetProperties`, `drmModeGetProperty`);
    /// nil when the kernel will not list primary and cursor planes.
    public func planeDetails() throws(DRMError) -> [DRMPlaneDetails]? {
        guard let descriptions = try planeDescriptions() else { return nil }
        return descriptions.map { description in
            var formats: [UInt32] = []
            if let plane = drmModeGetPlane(descriptor, description.id) {
                formats = (0..<Int(plane.pointee.count_formats)).map { plane.pointee.formats[$0] }
                drmModeFreePlane(plane)
            }
            var names: [String] = [], zpos: ClosedRange<UInt64>?, rotations: [String] = [], blendModes: [String] = []
            var zposIsFixed = false
            if let list = drmModeObjectGetProperties(descriptor, description.id, UInt32(DRM_MODE_OBJECT_PLANE)) {
                for index in 0..<Int(list.pointee.count_props) {
                    guard let property = drmModeGetProperty(descriptor, list.pointee.props[index]) else { continue }
                    defer { drmModeFreeProperty(property) }
                    let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    names.append(name)
                    if name == "zpos" { zposIsFixed = property.pointee.flags & UInt32(DRM_MODE_PROP_IMMUTABLE) != 0 }
                    let enums = (0..<Int(property.pointee.count_enums)).map { entry in
                        withUnsafeBytes(of: property.pointee.enums[entry].name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    }
                    switch name {
                    case "zpos" where property.pointee.count_values >= 2:
                        let low = property.pointee.values[0], high = property.pointee.values[1]
                        zpos = min(low, high)...max(low, high)
                    case "rotation": rotations = enums
                    case "pixel blend mode": blendModes = enums
                    default: break
                    }
                }
                drmModeFreeObjectProperties(list)
            }
            return DRMPlaneDetails(plane: description, formats: formats, properties: names.sorted(), zpos: zpos, rotations: rotations,
                                   blendModes: blendModes, zposIsFixed: zposIsFixed)
        }
    }
}
