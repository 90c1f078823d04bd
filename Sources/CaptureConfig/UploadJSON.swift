import Foundation

/// `<data dir>/upload.json`, the collector's settings from before the configuration file:
/// `{"url": …, "tokenFile": …, "trustedOrigins": […]}` (docs/upload.md). The fields are the
/// ``ConfigKey/uploadJSONField``s of the keys; it is the layer below the file.
package struct UploadJSON: Sendable {
    /// A field's value: a string, or an array of strings for a list key.
    enum Field: Sendable, Equatable {
        case text(String)
        case items([String])
    }

    /// The file's path.
    let path: String
    /// The fields it sets (an empty string or array sets nothing).
    let fields: [String: Field]

    /// `<dataDirectory>/upload.json`.
    package static func path(in dataDirectory: String) -> String { dataDirectory + "/upload.json" }

    /// Reads `<dataDirectory>/upload.json`; no fields if there is no such file.
    ///
    /// - Throws: ``CollectorSettingsError/malformedUploadJSON(path:)`` if it exists but is not a
    ///   JSON object whose fields (those it has of ``ConfigKey/uploadJSONField``) are strings,
    ///   or arrays of strings for a list key.
    static func read(dataDirectory: String) throws(CollectorSettingsError) -> UploadJSON {
        let path = path(in: dataDirectory)
        guard let bytes = FileManager.default.contents(atPath: path) else { return UploadJSON(path: path, fields: [:]) }
        guard let object = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] else {
            throw .malformedUploadJSON(path: path)
        }
        var fields: [String: Field] = [:]
        for key in ConfigKey.allCases {
            guard let name = key.uploadJSONField, let value = object[name], !(value is NSNull) else { continue }
            if key.type.isList {
                guard let items = value as? [Any], let strings = items as? [String] else { throw .malformedUploadJSON(path: path) }
                if !strings.isEmpty { fields[name] = .items(strings) }
            } else {
                guard let text = value as? String else { throw .malformedUploadJSON(path: path) }
                if !text.isEmpty { fields[name] = .text(text) }
            }
        }
        return UploadJSON(path: path, fields: fields)
    }
}
