//! WeChat article covers (spec 4.14 `articles-cover`): the prompt made
//! from the article, and the generated image center-cropped to the cover
//! ratio 2.35:1, scaled to 900×383 and encoded as JPEG.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;

/// Cover width in pixels (WeChat's large cover, 2.35:1).
pub const COVER_WIDTH: u32 = 900;
/// Cover height in pixels.
pub const COVER_HEIGHT: u32 = 383;
/// JPEG quality of covers (1–100).
pub const JPEG_QUALITY: u8 = 85;

/// Longest digest put in the prompt, in characters.
const DIGEST_CHARS: usize = 300;

/// The generation prompt for an article titled `title` with summary
/// `digest` (may be empty): a wide, text-free cover image.
pub fn cover_prompt(title: &str, digest: &str) -> String {
    let digest: String = digest.trim().chars().take(DIGEST_CHARS).collect();
    let mut prompt = format!(
        "为微信公众号文章设计一张横版封面图，宽高比约 2.35:1，主体居中、构图简洁、色彩鲜明，\
         画面中不要出现任何文字、字母、数字或水印。文章标题：{}。",
        title.trim()
    );
    if !digest.is_empty() {
        prompt.push_str(&format!("文章摘要：{digest}。"));
    }
    prompt
}

/// `image` (PNG, JPEG or WebP bytes) as a cover: the largest centered
/// 2.35:1 region, scaled to [`COVER_WIDTH`]×[`COVER_HEIGHT`], JPEG.
///
/// # Errors
/// Bytes that do not decode as an image.
pub fn to_cover_jpeg(image: &[u8]) -> Result<Vec<u8>, image::ImageError> {
    let decoded = image::load_from_memory(image)?;
    let (width, height) = (decoded.width(), decoded.height());
    // Compare width/height with COVER_WIDTH/COVER_HEIGHT in integers.
    let (crop_w, crop_h) = if u64::from(width) * u64::from(COVER_HEIGHT) > u64::from(height) * u64::from(COVER_WIDTH) {
        ((u64::from(height) * u64::from(COVER_WIDTH) / u64::from(COVER_HEIGHT)).max(1) as u32, height)
    } else {
        (width, (u64::from(width) * u64::from(COVER_HEIGHT) / u64::from(COVER_WIDTH)).max(1) as u32)
    };
    let cropped = decoded.crop_imm((width - crop_w) / 2, (height - crop_h) / 2, crop_w, crop_h);
    let cover = cropped.resize_exact(COVER_WIDTH, COVER_HEIGHT, FilterType::Lanczos3).to_rgb8();
    let mut jpeg = Cursor::new(Vec::new());
    JpegEncoder::new_with_quality(&mut jpeg, JPEG_QUALITY).encode_image(&cover)?;
    Ok(jpeg.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};

    fn png(width: u32, height: u32, f: impl Fn(u32, u32) -> Rgba<u8>) -> Vec<u8> {
        let img = RgbaImage::from_fn(width, height, f);
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    fn decode(jpeg: &[u8]) -> RgbImage {
        assert_eq!(image::guess_format(jpeg).unwrap(), ImageFormat::Jpeg);
        image::load_from_memory(jpeg).unwrap().to_rgb8()
    }

    fn near(pixel: &Rgb<u8>, expected: [u8; 3]) -> bool {
        pixel.0.iter().zip(expected).all(|(a, b)| a.abs_diff(b) < 24)
    }

    #[test]
    fn a_square_image_loses_its_top_and_bottom_bands() {
        // Red top band, blue bottom band, green middle: the crop keeps the middle.
        let square = png(1024, 1024, |_, y| match y {
            0..250 => Rgba([255, 0, 0, 255]),
            774.. => Rgba([0, 0, 255, 255]),
            _ => Rgba([0, 200, 0, 255]),
        });
        let cover = decode(&to_cover_jpeg(&square).unwrap());
        assert_eq!(cover.dimensions(), (COVER_WIDTH, COVER_HEIGHT));
        for (x, y) in [(10, 5), (450, 191), (890, 377)] {
            assert!(near(cover.get_pixel(x, y), [0, 200, 0]), "({x},{y}) = {:?}", cover.get_pixel(x, y));
        }
    }

    #[test]
    fn a_wide_image_loses_its_sides_and_small_or_transparent_images_work() {
        let wide =
            png(
                3000,
                600,
                |x, _| if !(400..2600).contains(&x) { Rgba([255, 0, 0, 255]) } else { Rgba([0, 0, 200, 255]) },
            );
        let cover = decode(&to_cover_jpeg(&wide).unwrap());
        assert_eq!(cover.dimensions(), (COVER_WIDTH, COVER_HEIGHT));
        assert!(near(cover.get_pixel(3, 190), [0, 0, 200]) && near(cover.get_pixel(896, 190), [0, 0, 200]));
        let tiny = png(7, 3, |_, _| Rgba([10, 20, 30, 0]));
        assert_eq!(decode(&to_cover_jpeg(&tiny).unwrap()).dimensions(), (COVER_WIDTH, COVER_HEIGHT));
        assert!(to_cover_jpeg(b"not an image").is_err());
    }

    #[test]
    fn the_prompt_carries_title_and_digest() {
        let prompt = cover_prompt(" 夏天喝什么茶 ", "绿茶、白茶与花草茶的搭配");
        assert!(prompt.contains("文章标题：夏天喝什么茶。") && prompt.contains("文章摘要：绿茶、白茶与花草茶的搭配。"));
        assert!(!cover_prompt("标题", "  ").contains("摘要"));
        assert_eq!(cover_prompt("t", &"长".repeat(1000)).matches('长').count(), DIGEST_CHARS);
    }
}
