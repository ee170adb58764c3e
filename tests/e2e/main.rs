//! End-to-end tests of the whole server (HTTP, gRPC, MCP, the binary and its CLIs), one
//! module per subject, in one test binary that links the server once
//! (docs/architecture.md "Tests"). Run one subject with its module name as the filter:
//!
//! ```sh
//! cargo test -p mediaops --test e2e data_videosite::
//! ```
//!
//! The modules share one process: a test never changes process-wide state another test reads
//! (environment variables are set once, to one value, by [`common::vendor_replay::set_vendor_keys`];
//! the one global log subscriber, of `watchlists`, keeps only the watch runner's warnings),
//! listens on free ports only, and keeps its files in its own temporary directory.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

mod common;

mod answer_latency;
mod articles_render;
mod banned_words;
mod billing;
mod billing_failures;
mod billing_hangups;
mod binary;
mod call_streams;
mod catalog;
mod catalog_golden;
mod charter;
mod connection_limits;
mod contract_ops;
mod data_articles;
mod data_channels;
mod data_clipapp;
mod data_coverage;
mod data_feeds;
mod data_intlshort;
mod data_lifestyle;
mod data_microblog;
mod data_multi;
mod data_rankings;
mod data_shortvideo;
mod data_sources;
mod data_trend;
mod data_videosite;
mod deploy_kit;
mod feeds;
mod grpc;
mod http_middleware;
mod key_revocation;
mod maintenance;
mod mcp;
mod openapi;
mod rate_limits;
mod redis_socket;
mod request_fuzz;
mod rest_errors;
mod runtime_shards;
mod scale_out;
mod shared_port;
mod skills_images;
mod store_failures;
mod store_prune;
mod sync;
mod tool_parse_link;
mod tracking;
mod vendor_packs;
mod vendors;
mod watchlists;
mod web_search;
mod wechat;
mod workbench;
