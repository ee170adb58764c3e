//! The `grpc.health.v1` service names a core publishes besides `""` and its
//! own services (docs/errors.md "Liveness and readiness"): one per
//! dependency, SERVING while that dependency answers, so a probe can tell
//! which one took the core out of rotation.

/// The ledger (Redis or embedded): keys, points, reservations.
pub const LEDGER: &str = "mediaops.readiness.Ledger";

/// The content store (PostgreSQL or SQLite), with a current schema.
pub const STORE: &str = "mediaops.readiness.Store";

/// Every dependency as `(name in a readiness answer, health service name)`.
pub const DEPENDENCIES: [(&str, &str); 2] = [("ledger", LEDGER), ("store", STORE)];
