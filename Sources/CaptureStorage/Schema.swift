import GRDB

/// The database schema as named, append-only migrations. Never edit a migration once released:
/// add a new one.
enum Schema {
    /// A fix's columns after its measurement, id and track, as v1 made them and v3 kept them
    /// (frozen: migrations never change).
    private static let fixColumns = """
        ts INTEGER NOT NULL,
        lat REAL NOT NULL,               -- degrees WGS-84
        lon REAL NOT NULL,
        altitude REAL,                   -- m above the WGS-84 ellipsoid
        horizontal_accuracy REAL,        -- m
        vertical_accuracy REAL,          -- m
        speed REAL,                      -- m/s; course: degrees from true north
        course REAL
        """

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: measurements, tracks, events, samples") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        device_id TEXT NOT NULL
                    );
                    -- AUTOINCREMENT: ids only ever grow on this device, even after a delete.
                    CREATE TABLE measurement (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        status TEXT NOT NULL CHECK (status IN ('capturing', 'paused', 'finished')),
                        modality TEXT NOT NULL,          -- the initial modality
                        start_ts INTEGER NOT NULL,       -- Unix ms
                        end_ts INTEGER,                  -- Unix ms of LIFECYCLE_STOP
                        track_count INTEGER NOT NULL DEFAULT 0,
                        sources TEXT NOT NULL DEFAULT '' -- the recorder's sources, to restart it
                    );
                    -- At most one open (capturing or paused) measurement per data directory.
                    CREATE UNIQUE INDEX measurement_one_open ON measurement (status != 'finished')
                        WHERE status != 'finished';
                    CREATE TABLE track (
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        number INTEGER NOT NULL,         -- 1-based
                        start_ts INTEGER NOT NULL,
                        end_ts INTEGER,                  -- NULL while the track is open
                        PRIMARY KEY (measurement_id, number)
                    ) WITHOUT ROWID;
                    CREATE TABLE event (
                        id INTEGER PRIMARY KEY,
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        ts INTEGER NOT NULL,
                        type INTEGER NOT NULL,           -- Cyface EventType number
                        value TEXT
                    );
                    CREATE INDEX event_by_measurement ON event (measurement_id, id);
                    CREATE TABLE location (
                        id INTEGER PRIMARY KEY,
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        track INTEGER NOT NULL,
                        \(fixColumns)
                    );
                    CREATE INDEX location_by_measurement ON location (measurement_id, id);
                    CREATE TABLE pressure (
                        id INTEGER PRIMARY KEY,
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        track INTEGER NOT NULL,
                        ts INTEGER NOT NULL,
                        hpa REAL NOT NULL
                    );
                    CREATE INDEX pressure_by_measurement ON pressure (measurement_id, id);
                    -- One row per motion sensor per flush: its samples encoded as one Cyface
                    -- Accelerations/Rotations/Directions batch message (at most 800 samples).
                    CREATE TABLE sensor_batch (
                        id INTEGER PRIMARY KEY,
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        track INTEGER NOT NULL,
                        sensor INTEGER NOT NULL,         -- 1 accelerometer, 2 gyroscope, 3 magnetometer
                        first_ts INTEGER NOT NULL,
                        last_ts INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        data BLOB NOT NULL
                    );
                    CREATE INDEX sensor_batch_by_measurement ON sensor_batch (measurement_id, sensor, id);
                    """)
        }
        migrator.registerMigration("v2: upload state") { db in
            try db.execute(
                sql: """
                    -- One row per measurement that an upload has touched; no row means pending.
                    CREATE TABLE upload (
                        measurement_id INTEGER PRIMARY KEY REFERENCES measurement (id) ON DELETE CASCADE,
                        status TEXT NOT NULL
                            CHECK (status IN ('pending', 'uploading', 'uploaded', 'skipped', 'failed')),
                        reason TEXT,                     -- why skipped or failed
                        session_url TEXT,                -- the collector's Location, verbatim
                        total_length INTEGER,            -- bytes of the transfer file
                        file_sha256 TEXT,                -- hex; another hash voids the session
                        acknowledged INTEGER NOT NULL DEFAULT 0, -- bytes the collector confirmed
                        created_at INTEGER NOT NULL,     -- Unix ms of the first attempt
                        updated_at INTEGER NOT NULL,     -- Unix ms of the last change
                        uploaded_at INTEGER              -- Unix ms of success
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v3: samples clustered by measurement") { db in
            // Fixes and pressure readings are kept in measurement order (WITHOUT ROWID, keyed by
            // measurement and a sequence number within it) instead of a rowid table plus an
            // index, and batches are indexed in arrival order instead of per sensor: a flush then
            // dirties one page less per table and two fewer index pages, which is most of
            // what a commit writes to the WAL.
            try db.execute(
                sql: """
                    CREATE TABLE location_v3 (
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        id INTEGER NOT NULL,             -- increasing within the measurement
                        track INTEGER NOT NULL,
                        \(fixColumns),
                        PRIMARY KEY (measurement_id, id)
                    ) WITHOUT ROWID;
                    INSERT INTO location_v3
                        SELECT measurement_id, id, track, ts, lat, lon, altitude, horizontal_accuracy,
                            vertical_accuracy, speed, course
                        FROM location;
                    DROP TABLE location;
                    ALTER TABLE location_v3 RENAME TO location;
                    CREATE TABLE pressure_v3 (
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        id INTEGER NOT NULL,             -- increasing within the measurement
                        track INTEGER NOT NULL,
                        ts INTEGER NOT NULL,
                        hpa REAL NOT NULL,
                        PRIMARY KEY (measurement_id, id)
                    ) WITHOUT ROWID;
                    INSERT INTO pressure_v3 SELECT measurement_id, id, track, ts, hpa FROM pressure;
                    DROP TABLE pressure;
                    ALTER TABLE pressure_v3 RENAME TO pressure;
                    DROP INDEX sensor_batch_by_measurement;
                    CREATE INDEX sensor_batch_by_measurement ON sensor_batch (measurement_id, id);
                    """)
        }
        migrator.registerMigration("v4: where an imported measurement came from") { db in
            // A Cyface transfer file carries no device or measurement id, so an import remembers
            // its content's digest (CyfaceTransferFile.contentDigest) to refuse the same ride twice.
            try db.execute(
                sql: """
                    CREATE TABLE measurement_origin (
                        measurement_id INTEGER PRIMARY KEY REFERENCES measurement (id) ON DELETE CASCADE,
                        content_sha256 TEXT NOT NULL     -- hex digest of the imported fixes, events, samples
                    ) WITHOUT ROWID;
                    CREATE INDEX measurement_origin_by_content ON measurement_origin (content_sha256);
                    """)
        }
        migrator.registerMigration("v5: delivery accounting") { db in
            try db.execute(
                sql: """
                    -- Per measurement: upload runs that tried it, and retries within them.
                    ALTER TABLE upload ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE upload ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
                    -- The delivery policy's memory between `capture sync` runs: consecutive
                    -- failed passes and when the next may try again (backoff with jitter).
                    CREATE TABLE delivery (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        failures INTEGER NOT NULL DEFAULT 0,
                        next_attempt_at INTEGER,         -- Unix ms; NULL: any time
                        last_attempt_at INTEGER,         -- Unix ms of the last pass that tried
                        last_error TEXT                  -- why the last pass failed
                    );
                    """)
        }
        migrator.registerMigration("v6: retention tombstones") { db in
            // A measurement the retention policy removed (Store.prune): when, why, and whether
            // the collector had it. `discarded` = 1: it was never delivered (drop_unsent: oldest).
            try db.execute(
                sql: """
                    CREATE TABLE measurement_tombstone (
                        measurement_id INTEGER PRIMARY KEY,
                        removed_at INTEGER NOT NULL,     -- Unix ms
                        reason TEXT NOT NULL,
                        discarded INTEGER NOT NULL CHECK (discarded IN (0, 1)),
                        start_ts INTEGER NOT NULL,
                        end_ts INTEGER
                    );
                    """)
        }
        migrator.registerMigration("v7: fix quality") { db in
            // What the receiver said about each fix's quality; NULL where it said nothing (and
            // for every fix stored before). A Cyface transfer file has no field for them.
            try db.execute(
                sql: """
                    ALTER TABLE location ADD COLUMN satellites INTEGER;  -- satellites used
                    ALTER TABLE location ADD COLUMN hdop REAL;
                    ALTER TABLE location ADD COLUMN vdop REAL;
                    ALTER TABLE location ADD COLUMN pdop REAL;
                    ALTER TABLE location ADD COLUMN fix_mode INTEGER;    -- 2 (2D) or 3 (3D)
                    """)
        }
        migrator.registerMigration("v9: one clock per measurement") { db in
            // What was added to the measurement's host-clock times to put them on GNSS time
            // (Store.applyClockCorrection); NULL: the host clock was taken to be right.
            try db.execute(sql: "ALTER TABLE measurement ADD COLUMN clock_correction_ms INTEGER")
        }
        migrator.registerMigration("v10: attachments") { db in
            // Files that go to the collector after their measurement (§2.8): the recorder's log and
            // what `capture attach` adds. The bytes live in <data dir>/attachments/<measurement>/;
            // the id is the attachmentId sent. Upload state as in `upload`.
            try db.execute(
                sql: """
                    CREATE TABLE attachment (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
                        format TEXT NOT NULL CHECK (format IN ('csv', 'json', 'jsonl', 'jpg')),
                        name TEXT NOT NULL,
                        added_at INTEGER NOT NULL,
                        status TEXT NOT NULL DEFAULT 'pending',
                        reason TEXT,
                        session_url TEXT,
                        total_length INTEGER,
                        file_sha256 TEXT,
                        acknowledged INTEGER NOT NULL DEFAULT 0,
                        uploaded_at INTEGER,
                        UNIQUE (measurement_id, name)
                    );
                    """)
        }
        migrator.registerMigration("v11: flush log") { db in
            // The sequence number of the last flush-log record in the database (FlushLog): the
            // records at or below it are spent.
            try db.execute(
                sql: """
                    CREATE TABLE flush_log (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        applied INTEGER NOT NULL
                    );
                    INSERT INTO flush_log (id, applied) VALUES (1, 0);
                    """)
        }
        migrator.registerMigration("v12: ride counts") { db in
            // How rides began and ended (RideCount): one row per kind, counted by the recorder
            // and by a recorder start that finished an interrupted ride; `capture metrics` shows them.
            try db.execute(
                sql: """
                    CREATE TABLE ride_count (
                        kind TEXT PRIMARY KEY,
                        count INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v13: measurement parts") { db in
            // A finished measurement too large for collector.payload_limit is cut into
            // consecutive measurements before an upload (Store.cutIntoParts): which part of which
            // measurement each is. No foreign key: the rows outlive their measurements, as the
            // counters `capture metrics` shows. Those an older version marked skipped for size
            // are waiting again, to be delivered in parts.
            try db.execute(
                sql: """
                    CREATE TABLE measurement_part (
                        measurement_id INTEGER PRIMARY KEY,
                        original_id INTEGER NOT NULL,    -- the measurement cut (the first part's id)
                        number INTEGER NOT NULL,         -- 1-based
                        count INTEGER NOT NULL           -- parts it was cut into
                    ) WITHOUT ROWID;
                    UPDATE upload SET status = 'pending', reason = NULL
                        WHERE status = 'skipped' AND reason LIKE '%collector.payload_limit%';
                    """)
        }
        migrator.registerMigration("v14: measurement ids reserved by the recorder") { db in
            // Ids the recorder reserved (Store.reserveMeasurementIDs) and has not begun a
            // measurement under yet, `reserved_next` to `reserved_last`: a ride begun while another
            // process holds the database takes one at once, in the flush log.
            try db.execute(
                sql: """
                    ALTER TABLE flush_log ADD COLUMN reserved_next INTEGER;
                    ALTER TABLE flush_log ADD COLUMN reserved_last INTEGER;
                    """)
        }
        return migrator
    }
}
