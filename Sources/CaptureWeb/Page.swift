import CaptureCore
import CaptureRecorder
import CaptureStorage

/// The page's HTML: made here from the same values `capture status`, `list` and `show` print,
/// with no framework and no map tiles (the box is offline). Everything fits a phone's width; the
/// status part is fetched again every two seconds while the page is in view (``script``), and
/// without JavaScript the page reloads itself every ten.
enum Page {
    /// A whole page: `title`, then `body`.
    static func document(_ title: String, _ body: String, refresh: Bool = false) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        \(refresh ? "<noscript><meta http-equiv=\"refresh\" content=\"10\"></noscript>" : "")
        <style>\(style)</style></head>
        <body>\(body)</body></html>
        """
    }

    static let style = """
        body{font:16px/1.4 system-ui,sans-serif;margin:0 auto;padding:12px;max-width:40em;color:#222;background:#fafafa}
        h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.05em;margin:1em 0 .3em}
        nav a{margin-right:1em}.big{font-size:1.6em;font-weight:600}
        .problem{color:#b00020}.quiet{color:#666}
        table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:2px 6px 2px 0;vertical-align:top;overflow-wrap:anywhere}
        form{display:inline-block;margin:4px 4px 4px 0}
        button,select,input{font-size:1em;padding:.5em .8em;border-radius:6px;border:1px solid #888;background:#fff}
        button{min-width:6em}button.main{background:#1a73e8;color:#fff;border-color:#1a73e8}
        img{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
        #said{min-height:1.4em;font-weight:600}
        """

    /// The navigation line.
    static let navigation = "<nav><a href=\"/\">Status</a><a href=\"/rides\">Rides</a></nav>"

    /// The login form; `said` is why it is shown again.
    static func login(said: String? = nil) -> String {
        document(
            "capture: log in",
            """
            <h1>capture</h1>
            <p>This box's page needs its access token (in <code>web.token</code> in its data directory, or \
            <code>web.token_file</code>).</p>
            <p id="said" class="problem">\(escape(said ?? ""))</p>
            <form method="post" action="/login"><input name="token" type="password" autocomplete="current-password" \
            placeholder="access token" required> <button type="submit" class="main">Open</button></form>
            """)
    }

    /// The status page: the live part, the rider's buttons, and what was said of the last one.
    static func status(_ report: StatusReport, storeSize: Int64, budget: ByteSize?, said: String?, now: Int64) -> String {
        let modalities = Modality.allCases.map { modality -> String in
            let chosen = modality == report.modality ? " selected" : ""
            return "<option value=\"\(modality.rawValue)\"\(chosen)>\(modality.rawValue)</option>"
        }.joined()
        return document(
            "capture: \(report.stateWord)",
            """
            \(navigation)
            <p id="said">\(escape(said ?? ""))</p>
            <div id="live">\(live(report, storeSize: storeSize, budget: budget, now: now))</div>
            <h2>Ride</h2>
            \(button("begin", "Begin ride"))\(button("end-ride", "End ride", action: "end"))\(button("mark", "Mark", main: true))
            <form method="post" action="/action/modality"><select id="modality" name="modality">\(modalities)</select> \
            <button id="set-modality">Set</button></form>
            <h2>Delivery</h2>
            \(button("deliver", "Deliver now"))
            <form method="post" action="/logout"><button id="logout">Log out</button></form>
            <script>\(script)</script>
            """, refresh: true)
    }

    /// A form of one button posting to `/action/<action>`.
    private static func button(_ id: String, _ label: String, action: String? = nil, main: Bool = false) -> String {
        "<form method=\"post\" action=\"/action/\(action ?? id)\"><button id=\"\(id)\"\(main ? " class=\"main\"" : "")>\(label)</button></form>"
    }

    /// Fetches the live part again every two seconds while the page is seen; to the login form
    /// when the token is no longer taken.
    static let script = """
        setInterval(async () => {
          if (document.hidden) return;
          try {
            const r = await fetch('/part/status', {credentials: 'same-origin', cache: 'no-store'});
            if (r.status === 401) { location.href = '/login'; return; }
            if (r.ok) document.getElementById('live').innerHTML = await r.text();
          } catch (e) {}
        }, 2000);
        """

    /// The part that changes: state and since when, the ride under way, the last fix, the
    /// sources, delivery, the login, the store, and the problems a person must fix.
    static func live(_ report: StatusReport, storeSize: Int64, budget: ByteSize?, now: Int64) -> String {
        var rows: [(String, String)] = []
        if let ride = report.ride {
            rows.append(("since", TextFormat.time(ride.since) + " (" + TextFormat.duration(max(0, now - ride.since)) + " ago)"))
            if let distance = ride.distance { rows.append(("distance", TextFormat.distance(distance))) }
        }
        if let id = report.measurement {
            var ride = "measurement \(id), track \(report.track ?? 1)"
            if let modality = report.modality { ride += ", " + modality.rawValue }
            rows.append(("ride", ride))
        }
        if let fix = report.recorder?.lastFix {
            var text = String(format: "%.5f, %.5f", fix.latitude, fix.longitude)
            if let satellites = fix.satellites { text += ", \(satellites) satellites" }
            text += ", " + TextFormat.duration(max(0, now - fix.timestamp)) + " ago"
            rows.append(("last fix", text))
        } else if report.recorder != nil {
            rows.append(("last fix", "none yet"))
        }
        let delivery = report.delivery ?? DeliveryTotals()
        var rides = "\(delivery.waiting) waiting, \(delivery.delivered) delivered"
        if delivery.failed > 0 { rides += ", \(delivery.failed) of those waiting failed last time" }
        rows.append(("rides", rides))
        if let login = report.login {
            rows.append(("login", "\(login.issuer): \(login.health.rawValue), ends \(TextFormat.time(login.expiresAt))"))
        }
        rows.append(("store", StatusReport.bytes(storeSize) + (budget.map { " of " + StatusReport.bytes($0.bytes) } ?? " (no budget)")))
        var html = "<p class=\"big\" id=\"state\">\(escape(report.stateWord))</p><table>"
        html += rows.map { "<tr><th>\($0.0)</th><td>\(escape($0.1))</td></tr>" }.joined()
        html += "</table>"
        if let recorder = report.recorder {
            html += "<h2>Sources</h2><table><tr><th>source</th><th>state</th><th>samples</th></tr>"
            html += recorder.sources.map { source -> String in
                "<tr><td>\(escape(source.name))</td><td>\(source.state.rawValue)</td><td>\(source.samples)</td></tr>"
            }.joined()
            html += "</table><p class=\"quiet\">" + recorder.sensors.filter { $0.rate > 0 }
                .map { "\($0.sensor) \(String(format: "%.1f", $0.rate)) Hz" }.joined(separator: " · ") + "</p>"
        }
        let problems = report.problems(storeSize: storeSize, budget: budget)
        if !problems.isEmpty {
            html += "<h2>Problems</h2><ul id=\"problems\">"
            html += problems.map { "<li class=\"problem\">\(escape($0))</li>" }.joined() + "</ul>"
        }
        return html
    }

    /// The rides, newest first.
    static func rides(_ entries: [MeasurementListEntry]) -> String {
        var html = navigation + "<h1>Rides</h1>"
        guard !entries.isEmpty else { return document("capture: rides", html + "<p>No rides yet.</p>") }
        html += "<table><tr><th>ride</th><th>start</th><th>duration</th><th>upload</th></tr>"
        html += entries.reversed().map { entry -> String in
            let duration = entry.end.map { TextFormat.duration($0 - entry.start) } ?? entry.status.rawValue
            return "<tr><td><a href=\"/rides/\(entry.id)\">\(entry.id)</a></td><td>\(TextFormat.time(entry.start))</td>"
                + "<td>\(duration)</td><td>\(entry.upload.status.rawValue)</td></tr>"
        }.joined()
        return document("capture: rides", html + "</table>")
    }

    /// One ride: its figures and its track drawn with the road surface.
    static func ride(_ summary: MeasurementSummary) -> String {
        var rows: [(String, String)] = [
            ("status", summary.status.rawValue), ("modality", summary.modality), ("start", TextFormat.time(summary.start)),
            ("distance", TextFormat.distance(summary.distanceMeters)),
            ("tracks", String(summary.tracks.count)), ("fixes", String(summary.counts.locations)),
        ]
        if let duration = summary.durationMs { rows.insert(("duration", TextFormat.duration(duration)), at: 3) }
        if let markers = summary.markers { rows.append(("marks", String(markers.count))) }
        let table = rows.map { "<tr><th>\($0.0)</th><td>\(escape($0.1))</td></tr>" }.joined()
        return document(
            "capture: ride \(summary.id)",
            """
            \(navigation)<h1>Ride \(summary.id)</h1><table>\(table)</table>
            <h2>Track and road surface</h2>
            <img id="map" src="/rides/\(summary.id)/map.svg" alt="the track of ride \(summary.id), coloured by road surface">
            """)
    }

    /// `text` safe inside HTML text and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
