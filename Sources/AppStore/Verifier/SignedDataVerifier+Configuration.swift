import X509

extension SignedDataVerifier {
    /// What a ``SignedDataVerifier`` trusts and accepts.
    ///
    /// Built once at startup from the service configuration; immutable afterwards.
    public struct Configuration: Sendable {
        /// The trust anchors; an `x5c` chain must end at one of these (its own root is ignored).
        public var trustedRoots: [Certificate]
        /// The apps whose data is accepted.
        public var apps: [AppStoreApp]
        /// The number of validated (leaf, intermediate) pairs cached; 0 disables the cache.
        /// - Why: disabling is only meant for benchmarks and tests of the cold path.
        public var chainCacheCapacity: Int
        /// The largest JWS (in bytes of text) accepted; larger input is rejected before parsing.
        /// - Why: bounds the work an unauthenticated caller can cause. Real notifications are ~15 KB.
        public var maximumJWSSize: Int
        /// An optional online revocation checker (none is provided by this library).
        public var revocationChecker: (any CertificateRevocationChecking)?
        /// Whether the JWS nested in a V2 notification have their own ES256 signatures checked too.
        /// - Why: they are strings inside the notification's signed payload, so its checked signature
        ///   already proves their bytes are Apple's; checking each again is two of a notification's
        ///   three P-256 verifications. Their headers, chains and claims are checked either way.
        public var checksNestedSignatures: Bool

        /// Creates a configuration with explicit roots.
        /// - Why: tests and staging pass a test root here; production uses ``appleDefault(apps:)``.
        public init(
            trustedRoots: [Certificate],
            apps: [AppStoreApp],
            chainCacheCapacity: Int = 64,
            maximumJWSSize: Int = 64 * 1024,
            revocationChecker: (any CertificateRevocationChecking)? = nil,
            checksNestedSignatures: Bool = false
        ) {
            self.trustedRoots = trustedRoots
            self.apps = apps
            self.chainCacheCapacity = chainCacheCapacity
            self.maximumJWSSize = maximumJWSSize
            self.revocationChecker = revocationChecker
            self.checksNestedSignatures = checksNestedSignatures
        }

        /// A configuration trusting only the bundled Apple Root CA - G3.
        /// - Why: the right default for production; throws `invalid_trust_anchor` if the resource is altered.
        public static func appleDefault(apps: [AppStoreApp]) throws -> Configuration {
            Configuration(trustedRoots: [try TrustAnchors.appleRootCAG3()], apps: apps)
        }
    }
}
