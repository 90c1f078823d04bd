import NIOCore
import NIOHTTPTypes
import Synchronization

/// Sizes the buffers each connection reads into by how many connections are open.
///
/// NIO's adaptive allocator grows a connection's reads to 64 KiB on a fast upload, and the
/// request body stream holds up to ten of them (more while a read is under way) before the
/// route's file write takes them. One upload at a time wants those large reads; with hundreds at
/// once the buffers, not the data, decide the collector's memory (77 MiB at 200 uploads against
/// 33 MiB idle). So the connections share a budget: the largest read is 64 KiB while up to 16
/// are open, halves as their number doubles, and is 4 KiB from 129 on. Each connection looks
/// again at every read it passes on, so one that opened early shrinks as others arrive and grows
/// when they are gone.
final class ReceiveBufferLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    /// The connections open through one collector.
    final class Connections: Sendable {
        let count = Atomic<Int>(0)
        init() {}
    }

    /// Read buffers all connections together may hold, at the body stream's fill.
    static let budget = 16 * 1024 * 1024
    /// Buffers one connection may hold at once: the stream's high watermark, and reads in flight.
    static let buffersPerConnection = 16

    /// The largest read for one connection when `connections` are open: the budget shared out,
    /// rounded down to a power of two, between 4 KiB and 64 KiB.
    static func maximumRead(connections: Int) -> Int {
        let share = budget / (max(connections, 1) * buffersPerConnection)
        let clamped = min(max(share, 4096), 65536)
        return 1 << (Int.bitWidth - 1 - clamped.leadingZeroBitCount)
    }

    private let connections: Connections
    /// The largest read this connection's allocator is set to.
    private var current = 0

    init(_ connections: Connections) { self.connections = connections }

    func handlerAdded(context: ChannelHandlerContext) {
        connections.count.add(1, ordering: .relaxed)
        resize(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connections.count.subtract(1, ordering: .relaxed)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        resize(context)
        context.fireChannelRead(data)
    }

    private func resize(_ context: ChannelHandlerContext) {
        let maximum = Self.maximumRead(connections: connections.count.load(ordering: .relaxed))
        guard maximum != current else { return }
        current = maximum
        let allocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: min(2048, maximum), maximum: maximum)
        try? context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: allocator)
    }
}
