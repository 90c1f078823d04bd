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

    private func error(_ code: Int32) -> DatabaseError { databaseError(code, statement) }
}

/// The error GRDB would throw for `code` from `statement`.
private func databaseError(_ code: Int32, _ statement: SQLiteStatement) -> DatabaseError {
    DatabaseError(
        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement))),
        sql: sqlite3_sql(statement).map { String(cString: $0) })
}

/// A query stepped through SQLite's C API, for reads that visit every batch of a measurement
/// (serialising it): GRDB's `Row` and `Data` cursors convert each value through its generic
/// machinery and copy each blob twice, which costs more than SQLite's own stepping. The statement
/// is prepared afresh (not cached), so an abandoned query never leaves a cached statement
/// mid-step; it is finalised when the query goes away.
final class DirectQuery {
    private let statement: Statement
    private var done = false

    /// Prepares `sql` and binds `arguments` to its parameters in order.
    init(_ db: Database, sql: String, arguments: [Int64]) throws {
        statement = try db.makeStatement(sql: sql)
        for (index, value) in arguments.enumerated() {
            sqlite3_bind_int64(statement.sqliteStatement, Int32(index + 1), value)
        }
    }

    /// Steps to the next row: `true` when there is one to read, `false` at the end (and after it:
    /// the query is not run again).
    func step() throws -> Bool {
        guard !done else { return false }
        let code = sqlite3_step(statement.sqliteStatement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            done = true
            return false
        default: throw databaseError(code, statement.sqliteStatement)
        }
    }

    /// An integer column of the current row (0 for NULL).
    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement.sqliteStatement, column)
    }

    /// A real column of the current row (0 for NULL).
    func double(_ column: Int32) -> Double {
        sqlite3_column_double(statement.sqliteStatement, column)
    }

    /// A real column of the current row that may be NULL.
    func optionalDouble(_ column: Int32) -> Double? {
        sqlite3_column_type(statement.sqliteStatement, column) == SQLITE_NULL ? nil : double(column)
    }

    /// A blob column of the current row, copied once.
    func bytes(_ column: Int32) -> [UInt8] {
        // The blob first, then its size: SQLite's documented order.
        guard let base = sqlite3_column_blob(statement.sqliteStatement, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement.sqliteStatement, column))
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }
}
