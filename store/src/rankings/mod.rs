//! The rankings' store side (docs/rankings.md): the spec's ranking rules
//! ([`rules`]: period boundaries such as spec 4.1's weekly Monday, the
//! daily lag, look-backs, category lists), the SQL statements of the boards
//! ranked in the database from the per-day aggregates
//! (`board_statements`), the stored board tables ([`board_tables`]) and
//! the choice of statement shapes ([`crate::plans`], kept below the statements it switches). What a board holds and when
//! it is built is decided by the operations (`mediaops_ops::rankings`).

pub(crate) mod board_statements;
pub mod board_tables;
pub mod rules;
