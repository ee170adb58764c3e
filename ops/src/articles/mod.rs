//! The article toolchain that runs inside the service (spec 4.15):
//! `POST /api/articles/render` (Markdown → WeChat-ready HTML, free) and the
//! theme operations `GET /api/articles/themes`,
//! `PUT /api/articles/themes/default`, `PUT|GET /api/articles/themes/custom/{id}`
//! (shapes ours, docs/articles.md).

pub mod render;
pub mod themes;

use mediaops_proto::mediaops::studio::v1::{RenderRequest, RenderResponse};

use mediaops_proto::error::ServiceError;
use render::RenderError;
use themes::{ThemeCatalog, ThemeSource};

/// Largest Markdown accepted by a render, in bytes of UTF-8.
pub const MAX_MARKDOWN_BYTES: usize = 1024 * 1024;
/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

/// The render and theme operations.
pub struct ArticleStudio {
    /// The built-in and custom themes, and each account's default.
    pub themes: ThemeCatalog,
}

impl ArticleStudio {
    /// The operations over `themes`.
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

    /// Loads the code grammars in the background so the first render does
    /// not wait for them (the RPCs are [`crate::services::article_studio`]).
    pub fn warm_up() {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn_blocking(render::highlight::warm_up);
        }
    }
}
