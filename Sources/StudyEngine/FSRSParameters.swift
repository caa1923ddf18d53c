import Foundation

/// FSRS's name for the four grades a self-graded card offers: Again, Hard, Good, Easy, rated
/// 1 to 4 as FSRS's formulas take them.
public typealias FSRSRating = CardGrade

/// FSRS's 21 parameters w0…w20, checked against py-fsrs 6.3.2's bounds.
public struct FSRSParameters: Sendable, Hashable, Codable, CustomStringConvertible {
    /// w0…w20.
    public let values: [Double]

    /// The FSRS-6 defaults (py-fsrs 6.3.2).
    public static let fsrs6Defaults = FSRSParameters(unchecked: [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666,
        0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ])

    /// The FSRS-5 defaults (its published 19 weights) with w19 = 0 and w20 = 0.5, which turns
    /// FSRS-6's formulas into FSRS-5's.
    public static let fsrs5Defaults = FSRSParameters(unchecked: [
        0.40255, 1.18385, 3.173, 15.69105, 7.1949, 0.5345, 1.4604, 0.0046, 1.54575, 0.1192,
        1.01925, 1.9395, 0.11, 0.29605, 2.2698, 0.2315, 2.9898, 0.51655, 0.6621, 0, 0.5,
    ])

    /// The smallest stability (days).
    package static let minimumStability = 0.001

    /// py-fsrs 6.3.2's lower bound of each parameter.
    package static let lowerBounds: [Double] = [
        0.001, 0.001, 0.001, 0.001, 1.0, 0.001, 0.001, 0.001, 0.0, 0.0,
        0.001, 0.001, 0.001, 0.001, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.1,
    ]

    /// py-fsrs 6.3.2's upper bound of each parameter.
    package static let upperBounds: [Double] = [
        100.0, 100.0, 100.0, 100.0, 10.0, 4.0, 4.0, 0.75, 4.5, 0.8,
        3.5, 5.0, 0.25, 0.9, 4.0, 1.0, 6.0, 2.0, 2.0, 0.8, 0.8,
    ]

    /// Parameters from 21 values, each finite and within py-fsrs's bounds.
    public init(_ values: [Double]) throws(StudyEngineError) {
        guard values.count == 21 else {
            throw StudyEngineError(.invalidConfiguration, "FSRS takes 21 parameters, got \(values.count)", at: .field("parameters"))
        }
        for (index, value) in values.enumerated() {
            guard value.isFinite, value >= Self.lowerBounds[index], value <= Self.upperBounds[index] else {
                throw StudyEngineError(
                    .invalidConfiguration, "\(value) is outside py-fsrs's bounds [\(Self.lowerBounds[index]), \(Self.upperBounds[index])]", at: .field("w\(index)"))
            }
        }
        self.values = values
    }

    package init(unchecked values: [Double]) { self.values = values }

    /// Clamps each value into its bounds (what training does after every step).
    package static func clamped(_ values: [Double]) -> [Double] {
        values.indices.map { min(upperBounds[$0], max(lowerBounds[$0], values[$0])) }
    }

    /// w20: the decay of the forgetting curve is −w20.
    public var decay: Double { -values[20] }

    /// FACTOR = 0.9^(1/decay) − 1, so that R(S, S) = 0.9.
    public var factor: Double { pow(0.9, 1 / decay) - 1 }

    /// The values, comma-separated with 4 decimals.
    public var description: String {
        values.map { String(format: "%.4f", $0) }.joined(separator: ", ")
    }
}
