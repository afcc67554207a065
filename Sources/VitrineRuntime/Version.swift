/// The release this build is.
public enum VitrineVersion {
    public static let current = "0.1.0"
}
