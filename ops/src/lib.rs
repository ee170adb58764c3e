//! The operations of mediaops, by proto service (spec 4–8): the data APIs
//! ([`data_api`], [`rankings`], [`trend`], [`feeds`]), articles rendering
//! ([`articles`]), banned words ([`banned_words`]), the positioning [`charter`],
//! vendor [`sync`], [`watch`] lists, [`tracking`] lists and the [`admin`] operations;
//! [`services`] implements each generated service trait with them. Builds on
//! `mediaops-platform`, `mediaops-connectors` and `mediaops-store`.

pub mod admin;
pub mod articles;
pub mod banned_words;
pub mod charter;
pub mod data_api;
pub mod feeds;
pub mod history;
pub mod rankings;
// The service types name the concrete reply of each generated trait method
// (see the module docs).
#[allow(refining_impl_trait)]
pub mod services;
pub mod sync;
pub mod task_reader;
pub mod tracking;
pub mod trend;
pub mod watch;
