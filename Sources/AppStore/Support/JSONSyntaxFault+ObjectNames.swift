extension JSONSyntaxFault {
    /// The field names read so far in each open object, to find one given twice.
    ///
    /// Names are compared as Swift strings, as the decoder's keys are, so `é` and `e` with a
    /// combining accent are one name, and so are `K` and the Kelvin sign. All open objects share one
    /// stack of names, which keeps its storage, so a small object costs no allocation of its own (a
    /// name of up to 15 bytes is held inline by its string); an object of more than
    /// ``linearLimit`` names keeps a set of them instead, so a large one is not compared name by name.
    struct ObjectNames {
        /// The most names an object compares one by one.
        static let linearLimit = 16

        /// One open container: where its names begin on the stack, and its set once it is large.
        private struct Frame {
            var start: Int
            var set: Set<String>?
        }

        /// The names of the open objects' linear parts, innermost last.
        private var stack: [String] = []
        /// The open containers, innermost last; nil for an array.
        private var frames: [Frame?] = []

        /// Opens an object (`isObject`) or an array.
        mutating func open(isObject: Bool) {
            frames.append(isObject ? Frame(start: stack.count, set: nil) : nil)
        }

        /// Closes the innermost container.
        mutating func close() {
            guard let frame = frames.popLast(), let start = frame?.start else { return }
            stack.removeSubrange(start...)
        }

        /// Adds `name` to the innermost object: false if the object holds that name already (or
        /// true, with nothing kept, inside an array or outside any container).
        mutating func insert(_ name: String) -> Bool {
            guard let innermost = frames.indices.last, let start = frames[innermost]?.start else { return true }
            // Tested through the array so the set is changed in place, not copied.
            if frames[innermost]?.set != nil {
                return frames[innermost]?.set?.insert(name).inserted ?? true
            }
            if stack[start...].contains(name) { return false }
            stack.append(name)
            if stack.count - start > Self.linearLimit {
                frames[innermost]?.set = Set(stack[start...])
                stack.removeSubrange(start...)
            }
            return true
        }
    }
}
