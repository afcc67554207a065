import NIOSSL
import VitrineConfig

/// The API's TLS settings: TLS 1.2 and 1.3 only, and in TLS 1.2 only ECDHE key
/// exchange with AEAD ciphers.
///
/// NIOSSL's defaults still offer static-RSA key exchange (no forward secrecy:
/// whoever later gets the certificate's key reads every recorded session, and
/// with it the token) and CBC with SHA-1 MACs. TLS 1.3's suites are all ECDHE
/// (or DHE) with AEAD already, and are not set here.
enum APITLSConfiguration {
    /// TLS 1.2 suites offered: forward secret (ECDHE) and authenticated encryption (GCM, ChaCha20-Poly1305),
    /// for both ECDSA and RSA certificates.
    static let tls12CipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// The server configuration for `files`, or a `ConfigError` naming `api.tls`.
    static func server(_ files: TLSFiles) throws -> TLSConfiguration {
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(files.certificate).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: files.key, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: certificates, privateKey: .privateKey(key))
            // NIOSSL's default floor is TLS 1.0; nothing a kiosk's operators use needs less than 1.2.
            configuration.minimumTLSVersion = .tlsv12
            configuration.cipherSuiteValues = tls12CipherSuites
            return configuration
        } catch {
            throw ConfigError(source: nil, issues: [ConfigIssue(path: "api.tls", message: "cannot load \(files.certificate) and \(files.key): \(error)")])
        }
    }
}
