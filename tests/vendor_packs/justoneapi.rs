//! The Just One API pack.
