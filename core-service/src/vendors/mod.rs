//! Upstream data vendors (issue 10; docs/vendors.md).

pub mod filter;
