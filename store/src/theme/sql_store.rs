//! Article theme settings in the content store's database (migration 0008,
//! tables `theme_defaults` and `custom_themes`; docs/articles.md,
//! docs/state.md): the [`ThemeStore`]
//! of both backends, one impl generic over them ([`SqlStore`]).

use async_trait::async_trait;
use mediaops_proto::mediaops::studio::v1::CustomTheme;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Row, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::theme::ThemeStore;
use mediaops_proto::error::ServiceError;

const GET_DEFAULT: &str = "SELECT theme_id FROM theme_defaults WHERE account_id = $1";

const PUT_DEFAULT: &str = "INSERT INTO theme_defaults (account_id, theme_id) VALUES ($1, $2) \
     ON CONFLICT (account_id) DO UPDATE SET theme_id = excluded.theme_id";

const CUSTOM_COLUMNS: &str = "SELECT id, name, description, css, updated_at FROM custom_themes";

const PUT_CUSTOM: &str = "INSERT INTO custom_themes (account_id, id, name, description, css, updated_at) \
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, id) DO UPDATE SET name = excluded.name, \
     description = excluded.description, css = excluded.css, updated_at = excluded.updated_at";

/// How the theme store is named in logs.
const WHAT: &str = "theme store";

/// Reads a `custom_themes` row.
fn custom_theme<R: Row>(row: &R) -> Result<CustomTheme, sqlx::Error>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    Ok(CustomTheme {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        description: row.try_get("description")?,
        css: row.try_get("css")?,
        updated_at: row.try_get("updated_at")?,
    })
}

#[async_trait]
impl<DB: Backend> ThemeStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
{
    async fn default_theme(&self, account_id: &str) -> Result<Option<String>, ServiceError> {
        sqlx::query_scalar(&Self::sql(GET_DEFAULT))
            .bind(account_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(database_failed(WHAT))
    }

    async fn set_default_theme(&self, account_id: &str, theme_id: &str) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(PUT_DEFAULT))
            .bind(account_id)
            .bind(theme_id)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn custom_theme(&self, account_id: &str, id: &str) -> Result<Option<CustomTheme>, ServiceError> {
        let statement = Self::sql(&format!("{CUSTOM_COLUMNS} WHERE account_id = $1 AND id = $2"));
        let row = sqlx::query(&statement)
            .bind(account_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        row.as_ref().map(custom_theme).transpose().map_err(database_failed(WHAT))
    }

    async fn custom_themes(&self, account_id: &str) -> Result<Vec<CustomTheme>, ServiceError> {
        let statement = Self::sql(&format!("{CUSTOM_COLUMNS} WHERE account_id = $1"));
        let rows =
            sqlx::query(&statement).bind(account_id).fetch_all(&self.pool).await.map_err(database_failed(WHAT))?;
        let mut themes = Vec::with_capacity(rows.len());
        for row in &rows {
            themes.push(custom_theme(row).map_err(database_failed(WHAT))?);
        }
        // Byte order, whatever the database's collation.
        themes.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(themes)
    }

    async fn put_custom_theme(&self, account_id: &str, theme: &CustomTheme) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(PUT_CUSTOM))
            .bind(account_id)
            .bind(&theme.id)
            .bind(&theme.name)
            .bind(&theme.description)
            .bind(&theme.css)
            .bind(&theme.updated_at)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }
}
