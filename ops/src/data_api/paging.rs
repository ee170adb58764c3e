//! The spec's paging fields (`page`, `pageNum`, `pageSize`, `size`;
//! `offset` is read by [`super::window`]), read one way for every data operation (docs/data-apis.md
//! "Paging"): pages are 1-based and 0 (unset) means the first page; sizes
//! default to [`DEFAULT_SIZE`] and may not exceed [`MAX_SIZE`] (spec 8);
//! a negative value or an oversized page is a 400 naming the field.

use mediaops_proto::error::ServiceError;

/// Items per page when the request does not say (spec 8: `size` default 20).
pub const DEFAULT_SIZE: u32 = 20;

/// Largest page (spec 8: `size` maximum 50).
pub const MAX_SIZE: u32 = mediaops_store::MAX_PAGE_SIZE;

/// A checked page request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// 1-based.
    pub page: u32,
    /// 1..=[`MAX_SIZE`].
    pub size: u32,
}

impl PageRequest {
    /// From a page number field and a size field (pass 0 for a size the
    /// operation does not take). `page_field`/`size_field` are the JSON
    /// names used in errors.
    pub fn new(page: i32, page_field: &str, size: i32, size_field: &str) -> Result<PageRequest, ServiceError> {
        if page < 0 {
            return Err(ServiceError::invalid_field(page_field, format!("{page_field} must be 1 or more")));
        }
        if size < 0 {
            return Err(ServiceError::invalid_field(size_field, format!("{size_field} must be 1 or more")));
        }
        let size = if size == 0 { DEFAULT_SIZE } else { size as u32 };
        if size > MAX_SIZE {
            return Err(ServiceError::invalid_field(size_field, format!("{size_field} must be at most {MAX_SIZE}")));
        }
        Ok(PageRequest { page: (page as u32).max(1), size })
    }

    /// Just a page number, default size.
    pub fn page(page: i32, page_field: &str) -> Result<PageRequest, ServiceError> {
        PageRequest::new(page, page_field, 0, "")
    }

    /// Index of the first item of the page.
    pub fn first_index(&self) -> u64 {
        u64::from(self.page - 1) * u64::from(self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_means_first_page_and_default_size() {
        assert_eq!(PageRequest::new(0, "page", 0, "size").unwrap(), PageRequest { page: 1, size: 20 });
        assert_eq!(PageRequest::new(3, "page", 50, "size").unwrap(), PageRequest { page: 3, size: 50 });
        assert_eq!(PageRequest::new(1, "page", 51, "size").unwrap_err().field.as_deref(), Some("size"));
        assert_eq!(PageRequest::new(-1, "pageNum", 0, "pageSize").unwrap_err().field.as_deref(), Some("pageNum"));
        assert_eq!(PageRequest::new(3, "page", 20, "size").unwrap().first_index(), 40);
    }
}
