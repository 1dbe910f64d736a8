/// One app the verifier accepts data for: its bundle id, its Apple id and the environments it runs in.
///
/// A payload for any other bundle id is `unknown_app`; a payload from another environment is
/// `environment_not_accepted`. Configure one per app served by this deployment.
public struct AppStoreApp: Hashable, Sendable {
    /// The app's bundle identifier (`com.example.app`).
    public var bundleId: String
    /// The app's numeric Apple id; required when ``environments`` contains Production.
    public var appAppleId: Int64?
    /// The signed environments accepted (usually `[.production]` or `[.sandbox]`, or both).
    public var environments: Set<AppStoreEnvironment>
    /// Accept `Xcode` and `LocalTesting` payloads, which Apple does not sign; results are marked unverified.
    /// - Why: for StoreKit Testing in development only; never enable it in production.
    public var allowsUnsignedLocalEnvironments: Bool

    /// Creates an app entry.
    /// - Why: the unit of configuration; a deployment lists its apps.
    public init(
        bundleId: String,
        appAppleId: Int64? = nil,
        environments: Set<AppStoreEnvironment> = [.production],
        allowsUnsignedLocalEnvironments: Bool = false
    ) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
        self.allowsUnsignedLocalEnvironments = allowsUnsignedLocalEnvironments
    }

    /// Whether a payload from `environment` is accepted for this app.
    public func accepts(_ environment: AppStoreEnvironment) -> Bool {
        if environment.isUnsignedLocal {
            return allowsUnsignedLocalEnvironments
        }
        return environments.contains(environment)
    }
}
