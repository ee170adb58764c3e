//! A generated cover for articles without a usable image: WeChat's draft
//! API requires a cover (`thumb_media_id`). A 900×383 PNG (WeChat's 2.35:1
//! cover ratio) in a muted colour taken from the title, with a lighter band,
//! so drafts of different articles are told apart in the draft box.

use sha2::{Digest, Sha256};

/// The cover's width in pixels.
pub const WIDTH: u32 = 900;
/// The cover's height in pixels (900 / 383 ≈ 2.35:1).
pub const HEIGHT: u32 = 383;

/// The cover PNG of `title`.
pub fn generate(title: &str) -> Vec<u8> {
    let hash = Sha256::digest(title.as_bytes());
    // Muted: every channel in 60..=160.
    let base = [60 + hash[0] % 101, 60 + hash[1] % 101, 60 + hash[2] % 101];
    let band = base.map(|c| c.saturating_add(60));
    let mut pixels = Vec::with_capacity((WIDTH * HEIGHT * 3) as usize);
    for y in 0..HEIGHT {
        let colour = if (HEIGHT * 2 / 5..HEIGHT * 3 / 5).contains(&y) { band } else { base };
        for _ in 0..WIDTH {
            pixels.extend_from_slice(&colour);
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("writing to a Vec cannot fail");
        writer.write_image_data(&pixels).expect("the buffer matches the header");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_are_pngs_of_the_cover_ratio_and_differ_by_title() {
        let a = generate("标题一");
        assert_eq!(super::super::images::ImageKind::sniff(&a), Some(super::super::images::ImageKind::Png));
        let decoder = png::Decoder::new(std::io::Cursor::new(&a));
        let reader = decoder.read_info().unwrap();
        assert_eq!((reader.info().width, reader.info().height), (WIDTH, HEIGHT));
        assert!(a.len() < super::super::images::MAX_BODY_IMAGE_BYTES, "small enough for any upload");
        assert_ne!(a, generate("标题二"));
        assert_eq!(a, generate("标题一"));
    }
}
