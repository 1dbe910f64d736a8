/// The refusal text for a `*_env` key whose variable holds no secret.
enum SecretVariable {
    /// Says whether `variable` is unset or set but empty: Docker Compose passes an unset
    /// `${VAR}` on as an empty one, and "not set" then sent operators looking in the wrong place.
    static func missing(_ variable: String, in environment: [String: String]) -> String {
        environment[variable] == nil
            ? "names \(variable), which is not set in the environment"
            : "names \(variable), which is set but empty (Docker Compose passes an unset ${\(variable)} on as empty)"
    }
}
