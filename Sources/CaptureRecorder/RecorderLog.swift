import Logging

/// The recorder's logger: its lines go through the handler the front end bootstrapped.
let recorderLog = Logger(label: "capture.recorder")
