package import CaptureCore

internal import Foundation

/// A parsed JSON value, keeping booleans, numbers and strings apart (gpsd's `"used":true` must
/// not read as 1, and `"activated":0` must not read as a date).
enum GPSDJSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([GPSDJSONValue])
    case object([String: GPSDJSONValue])

    /// Parses with JSONSerialization (an order of magnitude faster here than a `Decodable` enum
    /// that probes each type in turn).
    static func parse(_ text: String) -> GPSDJSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return nil
        }
        return convert(object)
    }

    private static func convert(_ value: Any) -> GPSDJSONValue? {
        switch value {
        case let number as NSNumber:
            // JSON true/false come back as NSNumber too; their Objective-C type is `c` (char),
            // which JSONSerialization uses for nothing else.
            if number.objCType.pointee == CChar(UInt8(ascii: "c")) { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        case let text as String:
            return .string(text)
        case is NSNull:
            return .null
        case let items as [Any]:
            var result: [GPSDJSONValue] = []
            result.reserveCapacity(items.count)
            for item in items {
                guard let converted = convert(item) else { return nil }
                result.append(converted)
            }
            return .array(result)
        case let fields as [String: Any]:
            var result: [String: GPSDJSONValue] = [:]
            for (key, item) in fields {
                guard let converted = convert(item) else { return nil }
                result[key] = converted
            }
            return .object(result)
        default:
            return nil
        }
    }
}

/// Typed access to one JSON object's fields; a present field of the wrong type is an error,
/// an absent (or `null`) one is `nil`.
struct GPSDObject {
    let fields: [String: GPSDJSONValue]
    let className: String

    func double(_ key: String) throws(GPSDParseError) -> Double? {
        switch fields[key] {
        case nil, .null: return nil
        case .number(let value): return value
        default: throw .invalidField(className: className, field: key)
        }
    }

    /// A number within `range` (latitude, longitude).
    func double(_ key: String, in range: ClosedRange<Double>) throws(GPSDParseError) -> Double? {
        guard let value = try double(key) else { return nil }
        guard range.contains(value) else { throw .invalidField(className: className, field: key) }
        return value
    }

    func int(_ key: String) throws(GPSDParseError) -> Int? {
        guard let value = try double(key) else { return nil }
        guard let exact = Int(exactly: value) else { throw .invalidField(className: className, field: key) }
        return exact
    }

    func string(_ key: String) throws(GPSDParseError) -> String? {
        switch fields[key] {
        case nil, .null: return nil
        case .string(let value): return value
        default: throw .invalidField(className: className, field: key)
        }
    }

    func bool(_ key: String) throws(GPSDParseError) -> Bool? {
        switch fields[key] {
        case nil, .null: return nil
        case .bool(let value): return value
        default: throw .invalidField(className: className, field: key)
        }
    }

    func objects(_ key: String) throws(GPSDParseError) -> [GPSDObject] {
        switch fields[key] {
        case nil, .null: return []
        case .array(let items):
            var result: [GPSDObject] = []
            for item in items {
                guard case .object(let fields) = item else { throw .invalidField(className: className, field: key) }
                result.append(GPSDObject(fields: fields, className: className))
            }
            return result
        default: throw .invalidField(className: className, field: key)
        }
    }

    /// `time`: ISO 8601 text (protocol ≥ 3.10) or, in old daemons, Unix seconds as a number.
    func time(_ key: String = "time") throws(GPSDParseError) -> (text: String?, unixMilliseconds: Int64?) {
        switch fields[key] {
        case nil, .null: return (nil, nil)
        case .string(let text):
            guard let millis = ISO8601Time.unixMilliseconds(iso8601: text) else {
                throw .invalidField(className: className, field: key)
            }
            return (text, millis)
        case .number(let seconds):
            guard seconds.isFinite, abs(seconds) < 1e12 else { throw .invalidField(className: className, field: key) }
            return (nil, Int64((seconds * 1000).rounded()))
        default: throw .invalidField(className: className, field: key)
        }
    }
}
