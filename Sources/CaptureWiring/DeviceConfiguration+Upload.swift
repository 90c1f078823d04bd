package import CaptureConfig
import CaptureCore
package import CaptureUpload

extension DeviceConfiguration {
    /// `auth.*` as OAuth settings, if `auth.issuer` is set.
    ///
    /// - Throws: ``DeviceConfigurationError`` when `auth.issuer` is set without `auth.client_id`.
    package func oauth() throws(DeviceConfigurationError) -> OAuthSettings? {
        guard let issuer = text(.authIssuer) else { return nil }
        guard let client = text(.authClientID) else {
            throw DeviceConfigurationError(
                place: issuer.origin.place, line: nil, key: ConfigKey.authClientID.name,
                expected: ConfigKey.authClientID.expected, kind: .badValue(found: "nothing (auth.issuer is set)"))
        }
        return OAuthSettings(
            issuer: issuer.value, clientID: client.value, clientSecretFile: text(.authClientSecretFile)?.value,
            dataDirectory: dataDirectory.value, scope: text(.authScope)?.value)
    }

    /// How an upload run goes as configured: the retry budget (`collector.retry_budget`) with
    /// the standard back-off, `privacy.zones` and `collector.payload_limit`.
    package func uploadOptions(appVersion: String) -> UploadRun.Options {
        var policy = UploadStateMachine.RetryPolicy.standard
        policy.budget = Int64(retryBudget.value.seconds * 1000)
        return UploadRun.Options(
            appVersion: appVersion, retryPolicy: policy, privacyZones: privacyZones.value, payloadLimit: payloadLimit?.bytes)
    }

    /// What an upload needs, as one value for ``UploadRun``: the collector's URL, the trusted
    /// origins and the credentials: a `--token-file` given on the command line, else OAuth 2.0
    /// when `auth.issuer` is set anywhere, else the token file, which is read here.
    ///
    /// - Throws: ``DeviceConfigurationError`` for `auth.issuer` without `auth.client_id`;
    ///   ``CollectorSettingsError`` for a malformed `upload.json` or no URL or token file
    ///   (naming every place looked in, the command line only for the keys in `options`: the
    ///   command's own options, so that `capture sync`, which has no `--url`, never says
    ///   "pass --url"); the token file's ``TokenFileError``.
    package func uploadSettings(options: Set<ConfigKey> = [.collectorURL, .tokenFile]) throws -> UploadSettings {
        let oauth = flags[.tokenFile] == nil ? try oauth() : nil
        _ = try uploadJSON.get()
        guard let url = collectorURL else {
            throw CollectorSettingsError.missing(.collectorURL, searched: searched(.collectorURL, options: options))
        }
        // Checked by the resolver; the URLOrigin each makes is the token's scope.
        let trusted = trustedOrigins.value.compactMap(URLOrigin.init)
        if let oauth { return UploadSettings(collectorURL: url.value, credentials: .oauth(oauth), trustedOrigins: trusted) }
        guard let tokenFile else { throw CollectorSettingsError.missing(.tokenFile, searched: searched(.tokenFile, options: options)) }
        return UploadSettings(
            collectorURL: url.value, credentials: .tokenFile(path: tokenFile.value, try TokenFile.read(tokenFile.value)),
            trustedOrigins: trusted)
    }

    /// Every place `key` is looked for, in order, for a message about a missing value.
    private func searched(_ key: ConfigKey, options: Set<ConfigKey>) -> [Origin] {
        var places: [Origin] = []
        if let option = flags[key]?.option ?? (options.contains(key) ? key.option : nil) { places.append(.option(option)) }
        places.append(.environment(key.environmentVariable))
        places.append(.file(path: file?.path ?? filePlace, key: key.name))
        if let field = key.uploadJSONField { places.append(.file(path: UploadJSON.path(in: dataDirectory.value), key: field)) }
        return places
    }
}
