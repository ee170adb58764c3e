//! Where an account's theme settings live: the [`ThemeStore`] trait,
//! implemented for both databases of the content store
//! (`crate::theme`: SQLite in the data dir, or PostgreSQL shared by
//! every core; docs/state.md). The tables are `theme_defaults` (an
//! account's default theme id) and `custom_themes` (`id, name,
//! description, css, updatedAt` per account).

mod sql_store;

use mediaops_proto::mediaops::studio::v1::CustomTheme;

use mediaops_proto::error::ServiceError;

/// Theme settings by account. An account only ever reaches its own.
#[async_trait::async_trait]
pub trait ThemeStore: Send + Sync + 'static {
    /// The account's saved default theme id, if it set one.
    async fn default_theme(&self, account_id: &str) -> Result<Option<String>, ServiceError>;

    /// Saves the account's default theme id (already checked to exist).
    async fn set_default_theme(&self, account_id: &str, theme_id: &str) -> Result<(), ServiceError>;

    /// The custom theme `id` of the account.
    async fn custom_theme(&self, account_id: &str, id: &str) -> Result<Option<CustomTheme>, ServiceError>;

    /// Every custom theme of the account, by id (byte order).
    async fn custom_themes(&self, account_id: &str) -> Result<Vec<CustomTheme>, ServiceError>;

    /// Creates or replaces a custom theme (already validated and stamped).
    async fn put_custom_theme(&self, account_id: &str, theme: &CustomTheme) -> Result<(), ServiceError>;
}
