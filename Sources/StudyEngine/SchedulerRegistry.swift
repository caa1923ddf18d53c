import ErrorReporting
import Foundation

/// How a scheduler joins the engine: its name, how its standard instance is made, and (from its
/// type) how its card states decode.
public struct SchedulerRegistration: Sendable {
    /// The scheduler's name.
    public let kind: SchedulerKind
    /// The standard instance on a calendar, fuzz on or off.
    let make: @Sendable (LearnerCalendar, Bool) -> AnyScheduler
    /// Decodes a state of this scheduler.
    let decodeState: @Sendable (any Decoder) throws -> any SchedulerState

    /// Registers `kind` with the standard instance `make` gives for a calendar and a fuzz setting.
    public init<Scheduler: ReviewScheduler>(
        _ kind: SchedulerKind, _ make: @escaping @Sendable (_ calendar: LearnerCalendar, _ fuzz: Bool) -> Scheduler
    ) {
        self.kind = kind
        self.make = { calendar, fuzz in AnyScheduler(make(calendar, fuzz)) }
        decodeState = { decoder in try Scheduler.State(from: decoder) }
    }
}

/// The schedulers the engine knows, by name: what ``AnyScheduler/standard(_:calendar:fuzz:)``
/// makes, what ``CardState`` decodes and what the command line offers.
///
/// Adding a scheduler to the engine is one file (the type, its state, its `SchedulerKind`) and
/// one line in ``builtIn``. A scheduler outside the engine joins through ``register(_:)``.
public enum SchedulerRegistry {
    /// The engine's own schedulers, one line each, in the order the command line lists them.
    public static let builtIn: [SchedulerRegistration] = [
        SchedulerRegistration(.sm2) { calendar, _ in SM2Scheduler(calendar: calendar) },
        SchedulerRegistration(.leitner) { _, _ in LeitnerScheduler() },
        SchedulerRegistration(.leitnerWallClock) { calendar, _ in WallClockLeitnerScheduler(calendar: calendar) },
        SchedulerRegistration(.staged) { _, _ in StagedScheduler() },
        SchedulerRegistration(.halfLife) { calendar, _ in HalfLifeScheduler(calendar: calendar) },
        SchedulerRegistration(.hlr) { calendar, _ in HLRScheduler(calendar: calendar) },
        SchedulerRegistration(.fsrs6) { calendar, fuzz in FSRSScheduler.fsrs6(calendar: calendar, fuzz: fuzz) },
        SchedulerRegistration(.fsrs5) { calendar, fuzz in FSRSScheduler.fsrs5(calendar: calendar, fuzz: fuzz) },
    ]

    /// Every registered scheduler: the built-in ones, then those registered since, in order.
    public static var all: [SchedulerRegistration] { table.withLock { $0.list } }

    /// Adds (or, for a name already taken, replaces) a scheduler. Registrations are never removed.
    public static func register(_ registration: SchedulerRegistration) {
        table.withLock { table in
            if let index = table.list.firstIndex(where: { $0.kind == registration.kind }) {
                table.list[index] = registration
            } else {
                table.list.append(registration)
            }
            table.byName[registration.kind.rawValue] = registration
        }
    }

    /// The scheduler registered under `name`.
    public static func registration(for name: String) -> SchedulerRegistration? {
        table.withLock { $0.byName[name] }
    }

    private struct Table {
        var list: [SchedulerRegistration]
        var byName: [String: SchedulerRegistration]
    }

    private static let table = Protected(Table(list: builtIn, byName: Dictionary(builtIn.map { ($0.kind.rawValue, $0) }) { first, _ in first }))
}
