//! The article toolchain that runs inside the service (spec 4.15):
//! `POST /api/articles/render` (Markdown → WeChat-ready HTML, free) and the
//! theme operations `GET /api/articles/themes`,
//! `PUT /api/articles/themes/default`, `PUT|GET /api/articles/themes/custom/{id}`
//! (shapes ours, docs/articles.md).

pub mod render;
pub mod themes;

use std::sync::Arc;

use mediaops_proto::mediaops::studio::v1::{
    GetCustomThemeRequest, PutCustomThemeRequest, RenderRequest, RenderResponse, SetDefaultThemeRequest, ThemesRequest,
};

use crate::error::ServiceError;
use crate::registry::Registry;
use render::RenderError;
use themes::{ThemeCatalog, ThemeSource};

/// Largest Markdown accepted by a render, in bytes of UTF-8.
pub const MAX_MARKDOWN_BYTES: usize = 1024 * 1024;
/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

/// The render and theme operations.
pub struct ArticleStudio {
    themes: ThemeCatalog,
}

impl ArticleStudio {
    pub fn new(themes: ThemeCatalog) -> ArticleStudio {
        ArticleStudio { themes }
    }

    /// Renders a request with the theme it names, the account default or
    /// the service default.
    pub async fn render(&self, account_id: &str, request: RenderRequest) -> Result<RenderResponse, ServiceError> {
        if request.markdown.len() > MAX_MARKDOWN_BYTES {
            return Err(ServiceError::invalid_field(
                "markdown",
                format!("the Markdown is {} bytes; at most {MAX_MARKDOWN_BYTES} are accepted", request.markdown.len()),
            ));
        }
        if request.title.chars().count() > MAX_TITLE_CHARS {
            return Err(ServiceError::invalid_field(
                "title",
                format!("the title may have at most {MAX_TITLE_CHARS} characters"),
            ));
        }
        let theme = self.themes.choose(account_id, &request.theme_id).await?;
        let (theme, rendered) = tokio::task::spawn_blocking(move || {
            let rendered = render::render(&request.markdown, Some(&request.title), theme.look());
            (theme, rendered)
        })
        .await
        .map_err(|e| ServiceError::internal(format!("the render stopped: {e}")))?;
        match rendered {
            Ok(rendered) => Ok(RenderResponse {
                html: rendered.html,
                warnings: rendered.warnings,
                theme_source: theme.source.as_str().to_owned(),
                theme_id: theme.id,
            }),
            Err(error @ RenderError::TooDeep(_)) => Err(ServiceError::invalid_field("markdown", error.to_string())),
            Err(error @ RenderError::Css(_)) if theme.source != ThemeSource::Builtin => {
                Err(ServiceError::invalid_field("themeId", format!("custom theme {:?}: {error}", theme.id)))
            }
            Err(error) => Err(ServiceError::internal(error.to_string())),
        }
    }

    /// Registers the render and theme RPCs, and loads the code grammars in
    /// the background so the first render does not wait for them.
    pub fn register(self: Arc<Self>, registry: &mut Registry) -> anyhow::Result<()> {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn_blocking(render::highlight::warm_up);
        }
        const SERVICE: &str = "mediaops.studio.v1.ArticleStudioService";
        registry.handle_shared(&format!("{SERVICE}.Render"), &self, |studio, ctx, req: RenderRequest| async move {
            studio.render(ctx.account_id(), req).await
        })?;
        registry.handle_shared(&format!("{SERVICE}.Themes"), &self, |studio, ctx, _: ThemesRequest| async move {
            studio.themes.list(ctx.account_id()).await
        })?;
        registry.handle_shared(
            &format!("{SERVICE}.SetDefaultTheme"),
            &self,
            |studio, ctx, req: SetDefaultThemeRequest| async move {
                studio.themes.set_default(ctx.account_id(), &req.theme_id).await
            },
        )?;
        registry.handle_shared(&format!("{SERVICE}.PutCustomTheme"), &self, |studio, ctx, req: PutCustomThemeRequest| async move { studio.themes.put_custom(ctx.account_id(), req).await })?;
        registry.handle_shared(
            &format!("{SERVICE}.GetCustomTheme"),
            &self,
            |studio, ctx, req: GetCustomThemeRequest| async move {
                studio.themes.get_custom(ctx.account_id(), &req.id).await
            },
        )?;
        Ok(())
    }
}
