/// How far the clock that stamps `recorded_at` stood from the database server's, read once.
///
/// Several `serve` instances share one PostgreSQL database but each stamps its events with its own
/// clock; the database's clock is the one they can all be compared with.
public struct ClockReading: Sendable, Equatable {
    /// Our clock minus the server's, in microseconds, against the middle of the round trip: positive
    /// when ours is ahead.
    public var aheadOfServerMicros: Int64
    /// Half the round trip, in microseconds: the reading is right to within this.
    public var uncertaintyMicros: Int64

    /// A reading, as the store takes it.
    public init(aheadOfServerMicros: Int64, uncertaintyMicros: Int64) {
        self.aheadOfServerMicros = aheadOfServerMicros
        self.uncertaintyMicros = uncertaintyMicros
    }

    /// Whether the two clocks surely differ by more than `tolerance` microseconds, whatever the
    /// round trip hid.
    public func differs(byMoreThan tolerance: Int64) -> Bool {
        aheadOfServerMicros.magnitude > UInt64(tolerance + uncertaintyMicros)
    }

    /// Whether the two clocks surely agree to within `tolerance` microseconds, whatever the round
    /// trip hid. A reading can be neither this nor `differs`: near the tolerance, or too slow to tell.
    public func agrees(within tolerance: Int64) -> Bool {
        aheadOfServerMicros.magnitude + UInt64(max(0, uncertaintyMicros)) <= UInt64(max(0, tolerance))
    }
}
