import GRDB
import GRDBSQLite

/// Runs a cached statement with values bound through SQLite's C API. The recorder's commit path
/// inserts a few rows per flush with up to sixteen values each; bound as GRDB
/// `StatementArguments` (an array of existentials per row), that costs more than SQLite's own
/// work. Used only inside a write transaction, on statements without observers; an error
/// surfaces as the `DatabaseError` GRDB would throw, and fails the transaction.
struct DirectStatement {
    private let statement: SQLiteStatement
    private var index: Int32 = 0

    init(_ statement: Statement) {
        self.statement = statement.sqliteStatement
    }

    mutating func bind(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(statement, index, value)
    }

    mutating func bind(_ value: Int) { bind(Int64(value)) }

    mutating func bind(_ value: Double) {
        index += 1
        sqlite3_bind_double(statement, index, value)
    }

    mutating func bind(_ value: Double?) {
        guard let value else {
            index += 1
            sqlite3_bind_null(statement, index)
            return
        }
        bind(value)
    }

    /// Binds a copy of the bytes (SQLite's `SQLITE_TRANSIENT`).
    mutating func bind(_ bytes: [UInt8]) {
        index += 1
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(
                statement, index, buffer.baseAddress, Int32(buffer.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    /// Steps the statement to completion (an INSERT or UPDATE), then resets it for the next row.
    mutating func run() throws {
        defer { reset() }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// The first column of the first row as an integer; `nil` for no row or NULL.
    mutating func int64() throws -> Int64? {
        defer { reset() }
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return sqlite3_column_type(statement, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 0)
        case SQLITE_DONE: return nil
        default: throw error(code)
        }
    }

    private mutating func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        index = 0
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement))),
            sql: sqlite3_sql(statement).map { String(cString: $0) })
    }
}
