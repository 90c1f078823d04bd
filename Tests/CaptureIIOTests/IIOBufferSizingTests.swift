import Testing
import CaptureCore
import CaptureIIO

@Suite("IIO buffer watermark and length from the sampling rate")
struct IIOBufferSizingTests {
    @Test(arguments: [
        // rate, latency → watermark, length
        (1000.0, 0.5, 500, 2000),
        (200.0, 0.5, 100, 400),
        (104.0, 0.5, 52, 208),
        (10.0, 0.5, 5, 128),
        (1.0, 0.5, 1, 128),
        (0.1, 0.5, 1, 128),
        (1000.0, 0.1, 100, 400),
        (1000.0, 0.0005, 1, 128),  // latency raised to 1 ms: one scan
        (100_000.0, 0.5, 8192, 32768),  // capped
    ])
    func sizing(rate: Double, latency: Double, watermark: Int, length: Int) {
        let sizing = IIOBufferSizing(rate: rate, maxLatency: latency)
        #expect(sizing.watermark == watermark)
        #expect(sizing.length == length)
    }

    @Test("an unknown rate, zero, negative, NaN or infinite: 100 Hz assumed; too high: 100 kHz")
    func unknownRates() {
        let assumed = IIOBufferSizing(rate: 100, maxLatency: 0.5)
        #expect(assumed.watermark == 50)
        for rate in [nil, 0, -5, Double.nan, Double.infinity] as [Double?] {
            #expect(IIOBufferSizing(rate: rate, maxLatency: 0.5) == assumed)
        }
        #expect(IIOBufferSizing(rate: 1e12, maxLatency: 0.5) == IIOBufferSizing(rate: 100_000, maxLatency: 0.5))
        #expect(IIOBufferSizing(rate: 1000, maxLatency: .nan).batchPeriod == 0.5)
        #expect(IIOBufferSizing(rate: 1000, maxLatency: 1e6).batchPeriod == 10)
    }

    @Test("for every rate: a scan waits at most the latency, the buffer holds four batches, wake-ups at most 2 / latency")
    func bounds() {
        let rates: [Double] = [0.5, 1, 2, 3, 12.5, 13, 26, 52, 104, 208, 416, 833, 1000, 1666, 3332, 6664, 16_000]
        for latency in [0.05, 0.25, 0.5, 1.0] {
            for rate in rates {
                let sizing = IIOBufferSizing(rate: rate, maxLatency: latency)
                #expect(Double(sizing.watermark - 1) / rate <= latency, "rate \(rate), latency \(latency)")
                #expect(sizing.length >= IIOBufferSizing.headroom * sizing.watermark)
                #expect(sizing.length >= IIOBufferSizing.minimumLength)
                if rate * latency >= 1 {
                    #expect(sizing.wakeUps(atRate: rate) <= 2 / latency, "rate \(rate), latency \(latency)")
                } else {
                    #expect(sizing.watermark == 1)
                }
            }
        }
        // The benchmark's case: four devices at 1 kHz wake the reader eight times a second.
        #expect(4 * IIOBufferSizing(rate: 1000, maxLatency: 0.5).wakeUps(atRate: 1000) == 8)
    }
}
