/// Key files on disk, in signify's format (see Signify.swift).
public enum ChannelKeys {
    /// Makes a key pair and writes it as `signify-openbsd -G -n -c COMMENT`
    /// would: the secret key unencrypted with mode 0600, the public key 0644;
    /// neither file may exist already (a key is never overwritten by mistake).
    @discardableResult
    public static func generate(publicKeyPath: String, secretKeyPath: String, comment: String) throws -> SignifySecretKey {
        guard SignifyFile.validComment(comment) else {
            throw SignifyFileError(file: secretKeyPath, message: "the comment must be one non-empty line of at most 1000 bytes")
        }
        for path in [publicKeyPath, secretKeyPath] where ChannelFiles.exists(path) {
            throw SignifyFileError(file: path, message: "already exists; a key is never overwritten (remove it first if you mean to)")
        }
        let key = SignifySecretKey.generate(comment: comment)
        try ChannelFiles.create(key.fileBytes, at: secretKeyPath, mode: 0o600)
        do {
            try ChannelFiles.create(key.publicKey.fileBytes, at: publicKeyPath, mode: 0o644)
        } catch {
            // A secret key without its public half would only confuse.
            try? ChannelFiles.remove(secretKeyPath)
            throw error
        }
        return key
    }

    public static func loadPublicKey(_ path: String) throws -> SignifyPublicKey {
        try SignifyPublicKey(parsing: ChannelFiles.read(path, limit: 4096), file: path)
    }

    public static func loadSecretKey(_ path: String) throws -> SignifySecretKey {
        try SignifySecretKey(parsing: ChannelFiles.read(path, limit: 4096), file: path)
    }

    /// The signature comment `signify -S` writes for a key file: "verify with
    /// NAME.pub" when the key is DIR/NAME.sec (the file's name only, as
    /// signify 31 has it), else "signature from COMMENT".
    public static func signatureComment(secretKeyPath: String, key: SignifySecretKey) -> String {
        if secretKeyPath.hasSuffix(".sec") {
            let name = secretKeyPath.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
            return "verify with " + name.dropLast(4) + ".pub"
        }
        return "signature from " + key.comment
    }
}
