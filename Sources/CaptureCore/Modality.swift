/// How the person moves during (part of) a measurement.
///
/// The raw value is the canonical spelling stored in the database, in `MODALITY_TYPE_CHANGE`
/// events and in upload metadata. It follows the Cyface server model, which is why the
/// electric and cargo bikes are spelled in mixed case (`EBike`, `CargoBike`, `ECargoBike`).
public enum Modality: String, CaseIterable, Sendable, Codable, Hashable {
    case bicycle = "BICYCLE"
    case eBike = "EBike"
    case cargoBike = "CargoBike"
    case eCargoBike = "ECargoBike"
    case car = "CAR"
    case motorbike = "MOTORBIKE"
    case bus = "BUS"
    case train = "TRAIN"
    case walking = "WALKING"
    case unknown = "UNKNOWN"

    /// Parses user input case-insensitively: `bicycle`, `Bicycle` and `BICYCLE` all give `.bicycle`.
    ///
    /// Returns `nil` for anything that is not one of the ten modalities.
    public init?(parsing text: String) {
        let wanted = text.lowercased()
        guard let match = Modality.allCases.first(where: { $0.rawValue.lowercased() == wanted }) else {
            return nil
        }
        self = match
    }

    /// The canonical spellings, for help texts and error messages.
    public static var spellings: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
