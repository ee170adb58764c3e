//! The durable state's traits and records, below the operations that use
//! them: each trait is implemented for both backends by the file of the
//! same name one level up (`store/charter.rs`, …; docs/state.md), and the
//! domain module re-exports its part as `<module>::store`
//! (`charter::store`, `feeds::store`, `wechat::store`, `watch::store`,
//! `articles::themes::store`), so the store never reaches up into them.

pub mod charter;
pub mod feed_token;
pub mod scheduled;
pub mod theme;
pub mod tracking;
pub mod vendor_call;
pub mod watch;
pub mod wechat;
pub mod word_list;
