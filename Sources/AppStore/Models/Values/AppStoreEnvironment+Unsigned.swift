extension AppStoreEnvironment {
    /// Whether this is `Xcode` or `LocalTesting`, whose payloads Apple does not sign.
    /// - Why: such payloads skip the chain and signature checks and are only accepted when enabled.
    public var isUnsignedLocal: Bool {
        self == .xcode || self == .localTesting
    }
}
