import Yams

/// Refusals for a `*_env` key: a variable that holds no secret, or one named like an override.
enum SecretVariable {
    /// Says whether `variable` is unset or set but empty: Docker Compose passes an unset
    /// `${VAR}` on as an empty one, and "not set" then sent operators looking in the wrong place.
    static func missing(_ variable: String, in environment: [String: String]) -> String {
        environment[variable] == nil
            ? "names \(variable), which is not set in the environment"
            : "names \(variable), which is set but empty (Docker Compose passes an unset ${\(variable)} on as empty)"
    }

    /// Refuses a `*_env` key naming a variable that starts `SUBLEDGER_`: such a variable is read as a
    /// configuration override, so once set it stopped every command as an unknown one, with a message
    /// that did not say the configuration had named it.
    /// Names the tooling sets (`OverrideName`) pass: those variables are no overrides.
    static func refuseOverrideNames(values: [String: String], sections: [String: Node], environment: [String: String]) throws {
        var named: [(key: String, variable: String)] = []
        let receiptOverride = "SUBLEDGER_APPLE_VERIFY_RECEIPT_SHARED_SECRET_ENV"
        if let variable = environment[receiptOverride] {
            named.append((receiptOverride, variable))
        } else if let variable = values["apple.verify_receipt.shared_secret_env"] {
            named.append(("apple.verify_receipt.shared_secret_env", variable))
        }
        if let apps = sections["apple.apps"]?.sequence {
            for (index, app) in apps.enumerated() {
                if let variable = app["shared_secret_env"]?.string { named.append(("apple.apps[\(index)].shared_secret_env", variable)) }
            }
        }
        for (key, variable) in named where OverrideName.isOverride(variable) {
            throw ConfigurationError(
                key: key,
                message: "names \(variable), but variables starting SUBLEDGER_ are configuration overrides (set, it would be refused as an unknown one); name the secret's variable without that prefix, such as APPLE_SHARED_SECRET"
            )
        }
    }
}
