//! Themes of the render (spec 4.15): 14 built-in ones ([`builtin`]), an
//! account's custom ones ([`custom`], stored through [`mediaops_store::theme`]), and the
//! choice a render makes:
//!
//! 1. `themeId` given: a built-in id → `builtin`; else one of the account's
//!    custom ids → `custom`; else 400 naming `themeId` and the valid ids;
//! 2. omitted: the account's saved default (`PUT /api/articles/themes/default`)
//!    → `account_default`;
//! 3. else the service default ([`builtin::SERVICE_DEFAULT`]) →
//!    `service_default`.

pub mod builtin;
pub mod custom;

use std::borrow::Cow;
use std::sync::Arc;

use mediaops_proto::mediaops::studio::v1::{CustomTheme, PutCustomThemeRequest, Theme, ThemesResponse};
use syntect::highlighting::Theme as CodeTheme;

use super::render::Look;
use super::render::highlight::code_theme;
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;
use mediaops_store::theme::ThemeStore;

/// Which rule picked the theme of a render (`themeSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeSource {
    /// `themeId` named a built-in theme (`builtin`).
    Builtin,
    /// `themeId` named one of the caller's custom themes (`custom`).
    Custom,
    /// No `themeId`: the account's saved default (`account_default`).
    AccountDefault,
    /// No `themeId` and no saved default (or it no longer exists): the
    /// service default `neutral` (`service_default`).
    ServiceDefault,
}

impl ThemeSource {
    /// The `themeSource` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ThemeSource::Builtin => "builtin",
            ThemeSource::Custom => "custom",
            ThemeSource::AccountDefault => "account_default",
            ThemeSource::ServiceDefault => "service_default",
        }
    }
}

/// The theme a render uses.
pub struct ChosenTheme {
    /// The theme's id, built-in or custom: the response's `themeId`.
    pub id: String,
    /// Which rule picked it: the response's `themeSource`.
    pub source: ThemeSource,
    /// Base CSS followed by the theme's CSS.
    pub css: Cow<'static, str>,
    /// Colours of highlighted code (a custom theme keeps the service
    /// default's).
    pub code_theme: &'static CodeTheme,
}

impl ChosenTheme {
    /// What the renderer needs of the theme: its CSS and code colours.
    pub fn look(&self) -> Look<'_> {
        Look { css: &self.css, code_theme: self.code_theme }
    }

    fn builtin(theme: &'static builtin::BuiltinTheme, source: ThemeSource) -> ChosenTheme {
        ChosenTheme {
            id: theme.id.to_owned(),
            source,
            css: Cow::Borrowed(theme.full_css()),
            code_theme: code_theme(theme.code_theme),
        }
    }

    fn custom(theme: CustomTheme, source: ThemeSource) -> ChosenTheme {
        ChosenTheme {
            css: Cow::Owned(format!("{}\n{}", builtin::BASE_CSS, theme.css)),
            id: theme.id,
            source,
            // Custom CSS cannot reach the code colours: the service default's.
            code_theme: code_theme(builtin::service_default().code_theme),
        }
    }
}

/// The theme operations over a store.
pub struct ThemeCatalog {
    store: Arc<dyn ThemeStore>,
    clock: mediaops_store::clock::Clock,
}

impl ThemeCatalog {
    /// `clock` stamps custom themes' `updatedAt` (the service clock,
    /// `MEDIAOPS_NOW`).
    pub fn new(store: Arc<dyn ThemeStore>, clock: mediaops_store::clock::Clock) -> ThemeCatalog {
        ThemeCatalog { store, clock }
    }

    /// The theme for a render by `account_id` naming `theme_id` ("" = none).
    pub async fn choose(&self, account_id: &str, theme_id: &str) -> Result<ChosenTheme, ServiceError> {
        let theme_id = theme_id.trim();
        if !theme_id.is_empty() {
            return match self.find(account_id, theme_id, ThemeSource::Builtin, ThemeSource::Custom).await? {
                Some(theme) => Ok(theme),
                None => Err(self.unknown(account_id, "themeId", theme_id).await),
            };
        }
        if let Some(saved) = self.store.default_theme(account_id).await?
            && let Some(theme) =
                self.find(account_id, &saved, ThemeSource::AccountDefault, ThemeSource::AccountDefault).await?
        {
            return Ok(theme);
        }
        Ok(ChosenTheme::builtin(builtin::service_default(), ThemeSource::ServiceDefault))
    }

    async fn find(
        &self,
        account_id: &str,
        theme_id: &str,
        builtin_source: ThemeSource,
        custom_source: ThemeSource,
    ) -> Result<Option<ChosenTheme>, ServiceError> {
        if let Some(theme) = builtin::find(theme_id) {
            return Ok(Some(ChosenTheme::builtin(theme, builtin_source)));
        }
        if custom::check_id(theme_id).is_err() {
            return Ok(None);
        }
        Ok(self.store.custom_theme(account_id, theme_id).await?.map(|theme| ChosenTheme::custom(theme, custom_source)))
    }

    /// 400 naming `field`, listing the valid ids.
    async fn unknown(&self, account_id: &str, field: &str, theme_id: &str) -> ServiceError {
        let custom = match self.store.custom_themes(account_id).await {
            Ok(themes) if !themes.is_empty() => {
                format!("; custom: {}", themes.iter().map(|t| t.id.as_str()).collect::<Vec<_>>().join(", "))
            }
            _ => String::new(),
        };
        ServiceError::invalid_field(
            field,
            format!("unknown theme {}; valid ids: built-in: {}{custom}", excerpt(theme_id), builtin::ids()),
        )
    }

    /// `GET /api/articles/themes`: built-in and custom themes, and the id a
    /// render without `themeId` would use.
    pub async fn list(&self, account_id: &str) -> Result<ThemesResponse, ServiceError> {
        let builtin = builtin::BUILTIN
            .iter()
            .map(|t| Theme { id: t.id.into(), name: t.name.into(), description: t.description.into() })
            .collect();
        let custom = self
            .store
            .custom_themes(account_id)
            .await?
            .into_iter()
            .map(|t| Theme { id: t.id, name: t.name, description: t.description })
            .collect();
        let default = self.choose(account_id, "").await?.id;
        Ok(ThemesResponse { builtin, custom, default })
    }

    /// `PUT /api/articles/themes/default`: saves the account's default.
    pub async fn set_default(&self, account_id: &str, theme_id: &str) -> Result<ThemesResponse, ServiceError> {
        let theme_id = theme_id.trim();
        if self.find(account_id, theme_id, ThemeSource::Builtin, ThemeSource::Custom).await?.is_none() {
            return Err(self.unknown(account_id, "themeId", theme_id).await);
        }
        self.store.set_default_theme(account_id, theme_id).await?;
        self.list(account_id).await
    }

    /// `PUT /api/articles/themes/custom/{id}`: creates or replaces a custom theme.
    pub async fn put_custom(
        &self,
        account_id: &str,
        request: PutCustomThemeRequest,
    ) -> Result<CustomTheme, ServiceError> {
        let checked = custom::check(request)?;
        if self.store.custom_theme(account_id, &checked.id).await?.is_none()
            && self.store.custom_themes(account_id).await?.len() >= custom::MAX_CUSTOM_THEMES
        {
            return Err(ServiceError::invalid_field(
                "id",
                format!("this account already has {} custom themes, the most it may keep", custom::MAX_CUSTOM_THEMES),
            ));
        }
        let theme = CustomTheme {
            id: checked.id,
            name: checked.name,
            description: checked.description,
            css: checked.css,
            updated_at: self.clock.stamp(),
        };
        self.store.put_custom_theme(account_id, &theme).await?;
        Ok(theme)
    }

    /// `GET /api/articles/themes/custom/{id}`.
    pub async fn get_custom(&self, account_id: &str, id: &str) -> Result<CustomTheme, ServiceError> {
        if builtin::find(id).is_some() {
            return Err(ServiceError::invalid_field(
                "id",
                format!("{} is a built-in theme, not a custom one", excerpt(id)),
            ));
        }
        custom::check_id(id)?;
        self.store
            .custom_theme(account_id, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(format!("no custom theme {} in this account", excerpt(id))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_store::sqlite::SqliteStore;

    async fn catalog(dir: &std::path::Path) -> ThemeCatalog {
        let store = SqliteStore::open(&dir.join("store.sqlite")).await.unwrap();
        ThemeCatalog::new(Arc::new(store), mediaops_store::clock::Clock::System)
    }

    fn put(id: &str) -> PutCustomThemeRequest {
        PutCustomThemeRequest {
            id: id.into(),
            name: " 品牌色 ".into(),
            description: "".into(),
            css: ".mo-article p { color: #0a7 }".into(),
        }
    }

    #[tokio::test]
    async fn choice_order_and_sources() {
        let dir = tempfile::tempdir().unwrap();
        let themes = catalog(dir.path()).await;
        let chosen = themes.choose("a", "").await.unwrap();
        assert_eq!((chosen.id.as_str(), chosen.source), ("neutral", ThemeSource::ServiceDefault));
        let chosen = themes.choose("a", "magazine").await.unwrap();
        assert_eq!((chosen.id.as_str(), chosen.source), ("magazine", ThemeSource::Builtin));

        let error = themes.choose("a", "nope").await.err().unwrap();
        assert_eq!(error.field.as_deref(), Some("themeId"));
        assert!(error.message.contains("magazine, ") && !error.message.contains("custom:"), "{}", error.message);

        let stored = themes.put_custom("a", put("brand")).await.unwrap();
        assert_eq!(stored.name, "品牌色");
        let chosen = themes.choose("a", "brand").await.unwrap();
        assert_eq!(chosen.source, ThemeSource::Custom);
        assert!(chosen.css.starts_with(builtin::BASE_CSS) && chosen.css.ends_with("color: #0a7 }"));
        assert!(themes.choose("b", "brand").await.is_err(), "another account does not see it");
        let error = themes.choose("a", "nope").await.err().unwrap();
        assert!(error.message.ends_with("; custom: brand"), "{}", error.message);

        let listed = themes.set_default("a", "brand").await.unwrap();
        assert_eq!(listed.default, "brand");
        assert_eq!(listed.custom.len(), 1);
        let chosen = themes.choose("a", "").await.unwrap();
        assert_eq!((chosen.id.as_str(), chosen.source), ("brand", ThemeSource::AccountDefault));
        themes.set_default("a", "minimal").await.unwrap();
        let chosen = themes.choose("a", " ").await.unwrap();
        assert_eq!((chosen.id.as_str(), chosen.source), ("minimal", ThemeSource::AccountDefault));
        assert_eq!(themes.set_default("a", "nope").await.err().unwrap().field.as_deref(), Some("themeId"));
    }

    #[tokio::test]
    async fn custom_theme_limits() {
        let dir = tempfile::tempdir().unwrap();
        let themes = catalog(dir.path()).await;
        for i in 0..custom::MAX_CUSTOM_THEMES {
            themes.put_custom("a", put(&format!("t{i}"))).await.unwrap();
        }
        let error = themes.put_custom("a", put("one-more")).await.err().unwrap();
        assert_eq!(error.field.as_deref(), Some("id"));
        themes.put_custom("a", put("t0")).await.expect("replacing an existing one is fine");
        assert_eq!(themes.get_custom("a", "t0").await.unwrap().id, "t0");
        assert_eq!(themes.get_custom("a", "zz").await.err().unwrap().code.as_str(), "not_found");
    }
}
