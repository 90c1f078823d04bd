import CaptureCore
import Foundation
import Synchronization

/// Faults `capture-collector` injects on purpose, so that tests see every failure the upload
/// protocol must survive. Counted faults hit the next eligible requests, in the order listed;
/// with a `rate`, each PUT also gets a random eligible fault with that probability (seeded,
/// so a run can be repeated).
public final class FaultPlan: Sendable {
    /// A kind of fault.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// Close the connection after part of a PUT's body (eligible: PUTs with a body).
        case drop
        /// Answer 500 without storing the body (PUTs with a body).
        case serverError = "500"
        /// Forget the session, as if it expired: 404 (any PUT).
        case expire
        /// Answer 308 without a `Range` header (status queries and PUTs that do not finish).
        case omitRange = "omit-range"
        /// Store the upload but close the connection instead of answering 201 (final PUTs).
        case loseFinal = "lose-final"
        /// Answer 503 with `Retry-After` (``Configuration/retryAfter`` seconds), storing nothing,
        /// as a collector that is overloaded or restarting does (any PUT).
        case unavailable = "503"
    }

    /// The plan as configured (also the JSON of `--faults FILE`).
    public struct Configuration: Sendable, Codable, Equatable {
        /// Each entry drops one PUT's connection after that many body bytes.
        public var dropAfterBytes: [Int64] = []
        /// How many PUTs get a 500.
        public var serverErrors = 0
        /// How many requests find their session expired.
        public var expire = 0
        /// How many 308 answers lack `Range`.
        public var omitRange = 0
        /// How many final 201 answers are lost.
        public var loseFinal = 0
        /// How many PUTs get a 503 with `Retry-After`.
        public var unavailable = 0
        /// The `Retry-After` of those 503s, in seconds.
        public var retryAfter = 1
        /// The probability of a random fault per PUT, 0…1.
        public var rate = 0.0
        /// The seed of the random faults.
        public var seed: UInt64 = 1
        /// Answers to hold back, each the next answer of its kind, in the order listed, so that a
        /// test can act at that moment (fill the client's disk) before the client hears it
        /// (``FaultPlan/hold(_:)``; needs ``holdDirectory``).
        public var hold: [Held] = []
        /// Where a held answer says so (the file `held`, holding its kind) and waits until the
        /// test creates `release`.
        public var holdDirectory: String?

        /// No faults.
        public init() {}

        private enum CodingKeys: String, CodingKey {
            case dropAfterBytes, serverErrors, expire, omitRange, loseFinal, unavailable, retryAfter, rate, seed, hold,
                holdDirectory
        }

        /// Reads a fault plan; every key is optional.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            dropAfterBytes = try container.decodeIfPresent([Int64].self, forKey: .dropAfterBytes) ?? []
            serverErrors = try container.decodeIfPresent(Int.self, forKey: .serverErrors) ?? 0
            expire = try container.decodeIfPresent(Int.self, forKey: .expire) ?? 0
            omitRange = try container.decodeIfPresent(Int.self, forKey: .omitRange) ?? 0
            loseFinal = try container.decodeIfPresent(Int.self, forKey: .loseFinal) ?? 0
            unavailable = try container.decodeIfPresent(Int.self, forKey: .unavailable) ?? 0
            retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfter) ?? 1
            rate = try container.decodeIfPresent(Double.self, forKey: .rate) ?? 0
            seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
            hold = try container.decodeIfPresent([Held].self, forKey: .hold) ?? []
            holdDirectory = try container.decodeIfPresent(String.self, forKey: .holdDirectory)
        }

        /// Whether any fault is configured.
        public var isEmpty: Bool {
            dropAfterBytes.isEmpty && serverErrors == 0 && expire == 0 && omitRange == 0 && loseFinal == 0
                && unavailable == 0 && rate <= 0 && (hold.isEmpty || holdDirectory == nil)
        }
    }

    /// An answer the collector can hold back (``Configuration/hold``), after it acted on the
    /// request: the session is open, the chunk or the whole upload stored.
    public enum Held: String, Sendable, Codable, CaseIterable {
        /// A pre-request's 200 with the session's `Location`.
        case preRequest = "pre-request"
        /// A 308 answering a PUT with a body (a chunk), not a status query.
        case incomplete = "308"
        /// The final chunk's 201.
        case created = "201"
    }

    /// What a request is, as far as faults go.
    public struct Request: Sendable {
        /// The PUT's body length.
        public var contentLength: Int64
        /// Whether it ends at the last byte (`Content-Range: bytes a-(N-1)/N`).
        public var isFinal: Bool
    }

    /// A fault decided for one request.
    public enum Decision: Sendable, Equatable {
        /// Close after this many body bytes.
        case drop(after: Int64)
        /// Any other kind, acted upon by the route.
        case other(Kind)
    }

    /// The counted kinds other than ``Kind/drop``, in the order they hit, each with its count.
    private static let counted: [(Kind, any WritableKeyPath<Configuration, Int> & Sendable)] = [
        (.serverError, \.serverErrors), (.expire, \.expire), (.omitRange, \.omitRange),
        (.loseFinal, \.loseFinal), (.unavailable, \.unavailable),
    ]

    private struct State {
        var configuration: Configuration
        var random: SplitMix64
    }

    private let state: Mutex<State>

    /// Creates the plan.
    public init(_ configuration: Configuration) {
        state = Mutex(State(configuration: configuration, random: SplitMix64(seed: configuration.seed)))
    }

    /// The `Retry-After` seconds of an ``Kind/unavailable`` answer.
    public var retryAfter: Int { state.withLock { max(0, $0.configuration.retryAfter) } }

    /// Decides the fault (if any) for one PUT.
    public func decide(for request: Request) -> Decision? {
        state.withLock { state in
            var eligible: [Kind] = [.expire, .unavailable]
            if request.contentLength > 0 { eligible += [.drop, .serverError] }
            if !request.isFinal { eligible.append(.omitRange) }
            if request.isFinal && request.contentLength > 0 { eligible.append(.loseFinal) }
            if eligible.contains(.drop), !state.configuration.dropAfterBytes.isEmpty {
                let after = state.configuration.dropAfterBytes.removeFirst()
                return .drop(after: min(max(0, after), request.contentLength - 1))
            }
            for (kind, count) in Self.counted where eligible.contains(kind) && state.configuration[keyPath: count] > 0 {
                state.configuration[keyPath: count] -= 1
                return .other(kind)
            }
            guard state.configuration.rate > 0, state.random.unit() < state.configuration.rate else { return nil }
            // 503s come only when counted, so the random plan's mix stays what the campaigns expect.
            let random = eligible.filter { $0 != .unavailable }
            let kind = random[Int(state.random.next() % UInt64(random.count))]
            if kind == .drop {
                return .drop(after: Int64(state.random.next() % UInt64(request.contentLength)))
            }
            return .other(kind)
        }
    }

    /// Holds back the answer `answer` if it is the next one the plan holds: writes `held` (its
    /// kind) into the hold directory and waits until `release` appears there (at most two
    /// minutes), then removes both and lets the answer go.
    func hold(_ answer: Held) async {
        let directory = state.withLock { state -> String? in
            guard let directory = state.configuration.holdDirectory, state.configuration.hold.first == answer else { return nil }
            state.configuration.hold.removeFirst()
            return directory
        }
        guard let directory else { return }
        let held = directory + "/held", release = directory + "/release"
        try? Data(answer.rawValue.utf8).write(to: URL(fileURLWithPath: held), options: .atomic)
        let deadline = ContinuousClock.now + .seconds(120)
        while !FileManager.default.fileExists(atPath: release), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        try? FileManager.default.removeItem(atPath: release)
        try? FileManager.default.removeItem(atPath: held)
    }
}
