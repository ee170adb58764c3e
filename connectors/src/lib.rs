//! Everything mediaops fetches from or sends to the outside
//! (ARCHITECTURE.md "connectors"): the one [`outbound`] HTTP client with its
//! retry, backoff and address policy, and the clients built on it: [`wechat`]
//! (tokens, image upload, drafts), [`images`] (image generation),
//! [`web_search`], data [`vendors`] and [`hotlists`] fetching, the watch
//! lists' [`notify`] channels (webhook, WeCom, Feishu, DingTalk, Telegram,
//! SMTP) and following short [`share_link`]s. Builds on
//! `mediaops-platform`; knows no operation module.

pub mod hotlists;
pub mod images;
pub mod notify;
pub mod outbound;
pub mod share_link;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod vendors;
pub mod web_search;
pub mod wechat;
