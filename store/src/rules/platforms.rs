//! The platforms of spec part 1.

/// Platform tokens in the order of spec 1's table (`microblog`, whose path
/// segment is ours, last); the data API catalog is listed in this order.
pub const PLATFORM_ORDER: [&str; 11] = [
    "lifestyle",
    "shortvideo",
    "articles",
    "videosite",
    "intlshort",
    "channels",
    "clipapp",
    "trend",
    "tool",
    "multi",
    "microblog",
];
