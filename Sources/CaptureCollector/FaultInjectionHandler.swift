import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// A channel handler between HTTP decoding and Hummingbird that carries out a ``FaultPlan``:
/// it closes connections in the middle of a request body, tells the route which other fault
/// to act out (in the ``FaultInjectionHandler/faultHeader`` request header, which it first
/// removes from what clients send), and closes the connection instead of sending a response
/// the route marked as lost.
final class FaultInjectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The request header that tells the route which fault to act out.
    static let faultHeader = HTTPField.Name("x-collector-fault")!
    /// The response header with which the route asks for its response to be lost.
    static let loseHeader = HTTPField.Name("x-collector-lose-response")!

    private let plan: FaultPlan
    /// Body bytes still allowed through before the connection is closed.
    private var dropRemaining: Int64?
    private var closed = false
    private var losing = false

    init(plan: FaultPlan) { self.plan = plan }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        switch unwrapInboundIn(data) {
        case .head(var head):
            head.headerFields[Self.faultHeader] = nil
            dropRemaining = nil
            if head.method == .put {
                let length = head.headerFields[.contentLength].flatMap { Int64($0) } ?? 0
                let final = head.headerFields[.contentRange].map(Self.isFinal) ?? false
                switch plan.decide(for: FaultPlan.Request(contentLength: length, isFinal: final)) {
                case .drop(let after):
                    dropRemaining = after
                case .other(let kind):
                    head.headerFields[Self.faultHeader] = kind.rawValue
                case nil:
                    break
                }
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .body(var buffer):
            if let remaining = dropRemaining {
                if Int64(buffer.readableBytes) >= remaining {
                    if remaining > 0, let part = buffer.readSlice(length: Int(remaining)) {
                        context.fireChannelRead(wrapInboundOut(.body(part)))
                    }
                    closed = true
                    context.close(promise: nil)
                    return
                }
                dropRemaining = remaining - Int64(buffer.readableBytes)
            }
            context.fireChannelRead(wrapInboundOut(.body(buffer)))
        case .end(let trailers):
            context.fireChannelRead(wrapInboundOut(.end(trailers)))
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(let head) = part, head.headerFields[Self.loseHeader] != nil {
            losing = true
        }
        if losing {
            promise?.fail(ChannelError.ioOnClosedChannel)
            if case .end = part {
                losing = false
                context.close(promise: nil)
            }
            return
        }
        context.write(data, promise: promise)
    }

    /// Whether `bytes a-b/N` ends at the last byte.
    static func isFinal(_ range: String) -> Bool {
        guard let parsed = ContentRange(range), case .bytes(_, let to, let total) = parsed else { return false }
        return to == total - 1
    }
}
