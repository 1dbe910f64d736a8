import PostgresNIO

extension PostgresBindings {
    /// The `($1 model, $2 key)` bindings of the statements that address one read-model document.
    static func document(model: String, key: String) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(model)
        bindings.append(key)
        return bindings
    }
}
