import Foundation

/// Talks to the recorder of a data directory.
package enum RecorderClient {
    /// Sends a request and returns the reply. Throws when no recorder answers.
    package static func send(_ request: ControlRequest, directory: String) throws -> ControlReply {
        let data = try JSONEncoder().encode(request)
        let reply = try ControlSocket.exchange(data, at: Recorder.socketPath(directory: directory))
        return try JSONDecoder().decode(ControlReply.self, from: reply)
    }
}
