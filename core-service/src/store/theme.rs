//! Article theme settings in the content store's database (migration 0008,
//! tables `theme_defaults` and `custom_themes`; docs/articles.md,
//! docs/state.md): the [`ThemeStore`](crate::store::state::theme::ThemeStore)
//! of both backends ([`theme_store_impl!`]).

pub(crate) const GET_DEFAULT: &str = "SELECT theme_id FROM theme_defaults WHERE account_id = $1";

pub(crate) const PUT_DEFAULT: &str = "INSERT INTO theme_defaults (account_id, theme_id) VALUES ($1, $2) \
     ON CONFLICT (account_id) DO UPDATE SET theme_id = excluded.theme_id";

pub(crate) const CUSTOM_COLUMNS: &str = "SELECT id, name, description, css, updated_at FROM custom_themes";

pub(crate) const PUT_CUSTOM: &str = "INSERT INTO custom_themes (account_id, id, name, description, css, updated_at) \
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, id) DO UPDATE SET name = excluded.name, \
     description = excluded.description, css = excluded.css, updated_at = excluded.updated_at";

/// How the theme store is named in logs.
pub(crate) const WHAT: &str = "theme store";

/// Reads a `custom_themes` row (a macro because the backends' rows differ).
macro_rules! custom_theme {
    ($row:expr) => {{
        use sqlx::Row;
        let row = $row;
        let column = |name: &str| {
            row.try_get::<String, _>(name).map_err($crate::store::failure::database_failed($crate::store::theme::WHAT))
        };
        mediaops_proto::mediaops::studio::v1::CustomTheme {
            id: column("id")?,
            name: column("name")?,
            description: column("description")?,
            css: column("css")?,
            updated_at: column("updated_at")?,
        }
    }};
}
pub(crate) use custom_theme;

/// The [`ThemeStore`](crate::store::state::theme::ThemeStore) of a
/// backend whose type has a `pool` field, with statements in `$n` form
/// rewritten by `$dialect`.
macro_rules! theme_store_impl {
    ($store:ty, $dialect:expr) => {
        #[async_trait::async_trait]
        impl $crate::store::state::theme::ThemeStore for $store {
            async fn default_theme(&self, account_id: &str) -> Result<Option<String>, $crate::error::ServiceError> {
                use $crate::store::theme::{GET_DEFAULT, WHAT};
                sqlx::query_scalar(&$dialect.placeholders(GET_DEFAULT.to_owned()))
                    .bind(account_id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))
            }

            async fn set_default_theme(
                &self,
                account_id: &str,
                theme_id: &str,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::theme::{PUT_DEFAULT, WHAT};
                sqlx::query(&$dialect.placeholders(PUT_DEFAULT.to_owned()))
                    .bind(account_id)
                    .bind(theme_id)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }

            async fn custom_theme(
                &self,
                account_id: &str,
                id: &str,
            ) -> Result<Option<mediaops_proto::mediaops::studio::v1::CustomTheme>, $crate::error::ServiceError> {
                use $crate::store::theme::{CUSTOM_COLUMNS, WHAT};
                let statement = $dialect.placeholders(format!("{CUSTOM_COLUMNS} WHERE account_id = $1 AND id = $2"));
                let row = sqlx::query(&statement)
                    .bind(account_id)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(match row {
                    Some(row) => Some($crate::store::theme::custom_theme!(&row)),
                    None => None,
                })
            }

            async fn custom_themes(
                &self,
                account_id: &str,
            ) -> Result<Vec<mediaops_proto::mediaops::studio::v1::CustomTheme>, $crate::error::ServiceError> {
                use $crate::store::theme::{CUSTOM_COLUMNS, WHAT};
                let statement = $dialect.placeholders(format!("{CUSTOM_COLUMNS} WHERE account_id = $1"));
                let rows = sqlx::query(&statement)
                    .bind(account_id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                let mut themes = Vec::with_capacity(rows.len());
                for row in &rows {
                    themes.push($crate::store::theme::custom_theme!(row));
                }
                // Byte order, whatever the database's collation.
                themes.sort_by(|a, b| a.id.cmp(&b.id));
                Ok(themes)
            }

            async fn put_custom_theme(
                &self,
                account_id: &str,
                theme: &mediaops_proto::mediaops::studio::v1::CustomTheme,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::theme::{PUT_CUSTOM, WHAT};
                sqlx::query(&$dialect.placeholders(PUT_CUSTOM.to_owned()))
                    .bind(account_id)
                    .bind(&theme.id)
                    .bind(&theme.name)
                    .bind(&theme.description)
                    .bind(&theme.css)
                    .bind(&theme.updated_at)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }
        }
    };
}
pub(crate) use theme_store_impl;
