//! What a store failure means to a caller: one
//! classification of [`StoreError`] and the one [`ServiceError`] each class
//! becomes, shared by the data operations, tasks and sync jobs.
//!
//! | class | cause | answer |
//! |---|---|---|
//! | [`Failure::Invalid`] | a value the store refuses (its own checks) | 400 `invalid_input` naming the field |
//! | [`Failure::NotFound`] | a snapshot of an entity not stored | 404 `not_found` |
//! | [`Failure::BadValue`] | the database refused a value (SQLSTATE class 22 or 54, e.g. a NUL character, a word over 2,047 bytes) | 400 `invalid_input`, generic text |
//! | [`Failure::Unavailable`] | no connection in time, connection refused or lost, database missing or not accepting connections, server shutting down, a transient conflict | 503 `store_unavailable` |
//! | [`Failure::SchemaMissing`] | a table is missing (the database was re-created empty) | 503 `store_unavailable` naming the cause |
//! | [`Failure::Bug`] | anything else | 500 `internal` |
//!
//! The database's own words never reach a response: every class but
//! [`Failure::Invalid`] and [`Failure::NotFound`] (whose texts the store
//! writes itself) is logged with its error and answered with a fixed text.

use mediaops_proto::error_code::ErrorCode;

use super::StoreError;
use mediaops_proto::error::ServiceError;

/// How a [`StoreError`] is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// A value the store refused itself ([`StoreError::Invalid`]): 400
    /// `invalid_input` naming the field.
    Invalid,
    /// The entity is not stored ([`StoreError::NotFound`]): 404.
    NotFound,
    /// The database refused a value (a control character, an over-long
    /// word): 400 `invalid_input`, uncharged.
    BadValue,
    /// The database cannot be reached (connection refused or lost, pool
    /// timeout): 503 `store_unavailable`, uncharged, retried by the caller.
    Unavailable,
    /// The database answers but its schema is missing (re-created empty):
    /// 503 `store_unavailable` until the next readiness check migrates it.
    SchemaMissing,
    /// Anything else (a failed migration or import, an unexpected driver
    /// error): 500 `internal`, logged.
    Bug,
}

impl StoreError {
    /// The class of this failure (see the module table).
    pub fn failure(&self) -> Failure {
        match self {
            StoreError::Invalid { .. } => Failure::Invalid,
            StoreError::NotFound(_) => Failure::NotFound,
            StoreError::Database(e) => of_sqlx(e),
            StoreError::Migrate(sqlx::migrate::MigrateError::Execute(e))
            | StoreError::Migrate(sqlx::migrate::MigrateError::ExecuteMigration(e, _)) => of_sqlx(e),
            StoreError::Migrate(_) | StoreError::Import(_) => Failure::Bug,
        }
    }

    /// Whether the database could not be reached or is not ready: what
    /// readiness reports and a caller may retry.
    pub fn is_unavailable(&self) -> bool {
        matches!(self.failure(), Failure::Unavailable | Failure::SchemaMissing)
    }

    /// The caller's error; `what` names the store in the log (`content
    /// store`, `task store`, …). Only invalid values and misses keep their
    /// (store-written) text.
    pub fn into_service_error(self, what: &str) -> ServiceError {
        let failure = self.failure();
        match (self, failure) {
            (StoreError::Invalid { field, message }, _) => ServiceError::invalid_field(field, message),
            (StoreError::NotFound(missing), _) => ServiceError::not_found(format!("{missing} is not in the store")),
            (error, failure) => failed(&error, failure, what),
        }
    }
}

/// A driver error of the per-account state stores (charters, themes, word
/// lists, WeChat state) as the caller's error, per the module table; `what`
/// names the store in the log.
pub(crate) fn database_failed(what: &'static str) -> impl Fn(sqlx::Error) -> ServiceError {
    move |e| StoreError::Database(e).into_service_error(what)
}

/// The fixed answer of a failure whose text is the database's, logged.
fn failed(error: &StoreError, failure: Failure, what: &str) -> ServiceError {
    match failure {
        Failure::BadValue => {
            tracing::warn!(error = %error, store = what, "the database refused a value");
            ServiceError::new(
                ErrorCode::InvalidInput,
                "a value in the request cannot be kept or searched by the store (a control character or an \
                     over-long word); nothing was charged",
            )
        }
        Failure::Unavailable => {
            tracing::warn!(error = %error, store = what, "the store is unavailable");
            ServiceError::new(
                ErrorCode::StoreUnavailable,
                "the store's database cannot be reached right now; nothing was charged, retry shortly",
            )
        }
        Failure::SchemaMissing => {
            tracing::warn!(error = %error, store = what, "the store's schema is missing");
            ServiceError::new(
                ErrorCode::StoreUnavailable,
                "the store's database has no schema yet (re-created?); migrations run again \
                     within seconds; nothing was charged, retry shortly",
            )
        }
        Failure::Invalid | Failure::NotFound | Failure::Bug => {
            tracing::error!(error = %error, store = what, "the store failed");
            ServiceError::internal(format!("the {what} failed"))
        }
    }
}

/// The class of a driver error.
fn of_sqlx(error: &sqlx::Error) -> Failure {
    match error {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => Failure::Unavailable,
        sqlx::Error::Database(db) => {
            if let Some(pg) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                of_sqlstate(pg.code())
            } else {
                db.code().and_then(|c| c.parse::<i32>().ok()).map_or(Failure::Bug, of_sqlite_code)
            }
        }
        sqlx::Error::Migrate(e) => match e.as_ref() {
            sqlx::migrate::MigrateError::Execute(e) | sqlx::migrate::MigrateError::ExecuteMigration(e, _) => of_sqlx(e),
            _ => Failure::Bug,
        },
        _ => Failure::Bug,
    }
}

/// The class of a PostgreSQL SQLSTATE (PostgreSQL manual, appendix A).
fn of_sqlstate(code: &str) -> Failure {
    match code {
        // undefined_table: the schema is gone.
        "42P01" => Failure::SchemaMissing,
        // invalid_catalog_name (database does not exist), object_not_in_prerequisite_state
        // (database not accepting connections), admin/crash shutdown, cannot connect now,
        // query canceled (statement timeout), idle session timeouts.
        "3D000" | "55000" | "57P01" | "57P02" | "57P03" | "57P05" | "57014" | "25P03" => Failure::Unavailable,
        _ => match &code[..code.len().min(2)] {
            // data exception, program limit exceeded.
            "22" | "54" => Failure::BadValue,
            // connection exception, invalid authorization, insufficient resources,
            // transaction rollback (serialization failure, deadlock), system error.
            "08" | "28" | "53" | "40" | "58" => Failure::Unavailable,
            _ => Failure::Bug,
        },
    }
}

/// The class of an SQLite extended result code (its primary code is the low
/// byte; <https://sqlite.org/rescode.html>).
fn of_sqlite_code(code: i32) -> Failure {
    match code & 0xff {
        // BUSY, LOCKED, IOERR, FULL, CANTOPEN, PROTOCOL.
        5 | 6 | 10 | 13 | 14 | 15 => Failure::Unavailable,
        // TOOBIG, RANGE.
        18 | 25 => Failure::BadValue,
        _ => Failure::Bug,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outages_are_unavailable_and_database_words_never_reach_the_caller() {
        assert_eq!(of_sqlstate("42P01"), Failure::SchemaMissing);
        assert_eq!(of_sqlstate("3D000"), Failure::Unavailable);
        assert_eq!(of_sqlstate("08006"), Failure::Unavailable);
        assert_eq!(of_sqlstate("22021"), Failure::BadValue);
        assert_eq!(of_sqlstate("54000"), Failure::BadValue);
        assert_eq!(of_sqlstate("42601"), Failure::Bug);
        assert_eq!(of_sqlite_code(5), Failure::Unavailable);
        assert_eq!(of_sqlite_code(1), Failure::Bug);
        let timeout = StoreError::Database(sqlx::Error::PoolTimedOut).into_service_error("content store");
        assert_eq!(timeout.code, ErrorCode::StoreUnavailable);
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused at 127.0.0.1:5432");
        let refused = StoreError::Database(sqlx::Error::Io(refused)).into_service_error("content store");
        assert_eq!(refused.code, ErrorCode::StoreUnavailable);
        assert!(!refused.message.contains("127.0.0.1"), "{}", refused.message);
        let bug =
            StoreError::Database(sqlx::Error::Protocol("ERROR: relation x".into())).into_service_error("task store");
        assert_eq!(bug.code, ErrorCode::Internal);
        assert!(!bug.message.contains("relation"), "{}", bug.message);
        let invalid = StoreError::invalid("page", "must be at least 1").into_service_error("content store");
        assert_eq!((invalid.code, invalid.field.as_deref()), (ErrorCode::InvalidInput, Some("page")));
    }
}
