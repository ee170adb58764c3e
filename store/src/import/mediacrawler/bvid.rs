//! Bilibili's two video ids: the number `aid` (`av…`) and the text `bvid`
//! (`BV1…`), one a reversible encoding of the other. MediaCrawler keys
//! videos by `aid`; the store keys `videosite` works by `bvid`
//! (docs/store.md "Schema"), so its rows are converted to land on the same
//! work as the `bilibili-popular` import. The encoding is the one the site
//! uses since 2020 (aid XOR a fixed code, base 58 over a fixed alphabet,
//! two pairs of positions swapped), as documented by the community
//! bilibili-API-collect project ("bvid说明").

const XOR_CODE: u64 = 23_442_827_791_579;
const MASK_CODE: u64 = 2_251_799_813_685_247;
const MAX_AID: u64 = 1 << 51;
const ALPHABET: &[u8; 58] = b"FcwAPNKTMug3GV5Lj7EJnHpWsx4tb8haYeviqBz6rkCy12mUSDQX9RdoZf";

/// The `bvid` of video `aid`; `None` for 0 or an aid beyond 2⁵¹.
pub fn av_to_bv(aid: u64) -> Option<String> {
    if aid == 0 || aid >= MAX_AID {
        return None;
    }
    let mut out = *b"BV1000000000";
    let mut tmp = (MAX_AID | aid) ^ XOR_CODE;
    let mut index = out.len() - 1;
    while tmp > 0 && index >= 3 {
        out[index] = ALPHABET[(tmp % 58) as usize];
        tmp /= 58;
        index -= 1;
    }
    out.swap(3, 9);
    out.swap(4, 7);
    String::from_utf8(out.to_vec()).ok()
}

/// The `aid` of `bvid`; `None` when it is not a well-formed `BV1…` id.
pub fn bv_to_av(bvid: &str) -> Option<u64> {
    let mut chars: Vec<u8> = bvid.as_bytes().to_vec();
    if chars.len() != 12 || !bvid.starts_with("BV1") {
        return None;
    }
    chars.swap(3, 9);
    chars.swap(4, 7);
    let mut tmp: u64 = 0;
    for c in &chars[3..] {
        let digit = ALPHABET.iter().position(|a| a == c)? as u64;
        tmp = tmp.checked_mul(58)?.checked_add(digit)?;
    }
    Some((tmp & MASK_CODE) ^ XOR_CODE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs from the archived popular feed (`works/bilibili/2023-10-26`).
    const PAIRS: [(u64, &str); 3] =
        [(662554190, "BV1ph4y1i7Ua"), (535243818, "BV1cM41197ui"), (492701819, "BV1KN411s7vP")];

    #[test]
    fn converts_both_ways_as_the_site_does() {
        for (aid, bvid) in PAIRS {
            assert_eq!(av_to_bv(aid).as_deref(), Some(bvid));
            assert_eq!(bv_to_av(bvid), Some(aid));
        }
        assert_eq!(av_to_bv(0), None);
        assert_eq!(bv_to_av("BV1cM41197u"), None);
        assert_eq!(bv_to_av("BV1cM41197u0"), None, "0 is not in the alphabet");
    }
}
