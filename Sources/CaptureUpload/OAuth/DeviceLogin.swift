/// The waiting half of the device authorization grant (RFC 8628 §3.4–3.5): polls the token
/// endpoint as ``DevicePolling`` says until the person approves, declines, or the codes expire.
/// `capture login` prints the code, then calls ``poll(_:_:_:)``.
///
/// The waiting and the clock are injected, so a test drives the loop without sleeping.
public struct DeviceLogin: Sendable {
    /// Sleeps this many seconds between polls.
    public var sleep: @Sendable (Int64) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    /// Seconds since the codes were issued.
    public var elapsed: @Sendable (ContinuousClock.Instant) -> Int64 = { (ContinuousClock.now - $0).components.seconds }
    /// Called when the issuer asks to poll less often (`slow_down`), with the new interval in seconds.
    public var slowedDown: @Sendable (Int64) -> Void = { _ in }

    /// The standard loop: real sleeps, the continuous clock.
    public init() {}

    /// Polls `client`'s token endpoint with the device code of `authorization` until the login
    /// ends. `ask` is one poll (``OAuthClient/pollDevice(_:deviceCode:)`` by default).
    ///
    /// - Returns: the tokens, once the person approved.
    /// - Throws: ``DevicePolling/Failure``: declined, expired, refused, or the issuer stayed
    ///   unreachable until the codes expired.
    public func poll(
        _ client: OAuthClient, _ endpoints: IssuerEndpoints, _ authorization: DeviceAuthorization
    ) async throws(DevicePolling.Failure) -> TokenGrant {
        try await poll(authorization) { () async -> Result<TokenGrant, OAuthError> in
            do throws(OAuthError) {
                return .success(try await client.pollDevice(endpoints, deviceCode: authorization.deviceCode))
            } catch {
                return .failure(error)
            }
        }
    }

    /// ``poll(_:_:_:)`` with one poll given as `ask`.
    public func poll(
        _ authorization: DeviceAuthorization, ask: () async -> Result<TokenGrant, OAuthError>
    ) async throws(DevicePolling.Failure) -> TokenGrant {
        var polling = DevicePolling(interval: authorization.interval, expiresIn: authorization.expiresIn)
        let start = ContinuousClock.now
        var step = DevicePolling.Step.wait(seconds: polling.interval)
        while true {
            switch step {
            case .done(let grant):
                return grant
            case .failed(let failure):
                throw failure
            case .wait(let seconds):
                do {
                    try await sleep(seconds)
                } catch {
                    // Cancelled: the person gave up waiting.
                    throw .unreachable("cancelled")
                }
                let answer = await ask()
                let before = polling.slowDowns
                step = polling.answered(answer, elapsed: elapsed(start))
                if polling.slowDowns > before { slowedDown(polling.interval) }
            }
        }
    }
}
