//! WeChat's message encryption for the third-party platform's event URL
//! (消息加解密, "安全模式"): the `msg_signature` check and AES-256-CBC.
//!
//! As WeChat documents it:
//! - AES key = base64(EncodingAESKey + "="), 32 bytes; IV = its first 16 bytes.
//! - Plain text = 16 random bytes ‖ message length (4 bytes, big-endian) ‖
//!   message ‖ appid, PKCS#7-padded to a multiple of **32** bytes.
//! - `msg_signature` = hex(SHA-1(sort([token, timestamp, nonce, Encrypt]) joined)).

use aes::cipher::block_padding::NoPadding;
use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use sha1::{Digest, Sha1};

/// Padding block of WeChat's PKCS#7 (32, not AES's 16).
const PAD_BLOCK: usize = 32;

/// Standard base64 that accepts the non-zero trailing bits an
/// EncodingAESKey (43 random characters) usually has.
const LENIENT: GeneralPurpose =
    GeneralPurpose::new(&base64::alphabet::STANDARD, GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true));

/// Why a message was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptoError {
    /// The configured EncodingAESKey is not 43 base64 characters (a
    /// 32-byte key).
    #[error("EncodingAESKey must be 43 base64 characters")]
    BadKey,
    /// The `msg_signature` is not the SHA-1 of the sorted token, timestamp,
    /// nonce and encrypted message ([`MessageCrypto::signature`]).
    #[error("msg_signature does not match")]
    BadSignature,
    /// The message does not decrypt to a well-formed payload; what is
    /// wrong (`not base64`, `padding`, `length`, …).
    #[error("the encrypted message is malformed: {0}")]
    Malformed(&'static str),
    /// The decrypted message names another AppID (the one given).
    #[error("the message is for appid {0:?}, not ours")]
    WrongAppid(String),
}

/// The keys of one event URL.
pub struct MessageCrypto {
    token: String,
    key: [u8; 32],
    appid: String,
}

impl MessageCrypto {
    /// # Errors
    /// [`CryptoError::BadKey`] when `encoding_aes_key` is not 43 base64 characters.
    pub fn new(token: &str, encoding_aes_key: &str, appid: &str) -> Result<MessageCrypto, CryptoError> {
        if encoding_aes_key.len() != 43 {
            return Err(CryptoError::BadKey);
        }
        let bytes = LENIENT.decode(format!("{encoding_aes_key}=")).map_err(|_| CryptoError::BadKey)?;
        let key: [u8; 32] = bytes.try_into().map_err(|_| CryptoError::BadKey)?;
        Ok(MessageCrypto { token: token.to_owned(), key, appid: appid.to_owned() })
    }

    /// `msg_signature` (or `signature` with `encrypted` empty) of a message.
    pub fn signature(&self, timestamp: &str, nonce: &str, encrypted: &str) -> String {
        let mut parts = [self.token.as_str(), timestamp, nonce, encrypted];
        parts.sort_unstable();
        hex::encode(Sha1::digest(parts.concat().as_bytes()))
    }

    /// Checks `msg_signature` in constant time, then decrypts `encrypted`
    /// (the `<Encrypt>` element) and checks its appid.
    pub fn open(
        &self,
        msg_signature: &str,
        timestamp: &str,
        nonce: &str,
        encrypted: &str,
    ) -> Result<String, CryptoError> {
        let expected = self.signature(timestamp, nonce, encrypted);
        let given = msg_signature.to_ascii_lowercase();
        let same = expected.len() == given.len()
            && expected.bytes().zip(given.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
        if !same {
            return Err(CryptoError::BadSignature);
        }
        self.decrypt(encrypted)
    }

    /// Decrypts an `<Encrypt>` value into the message XML.
    pub fn decrypt(&self, encrypted: &str) -> Result<String, CryptoError> {
        let mut buf = base64::engine::general_purpose::STANDARD
            .decode(encrypted.trim())
            .map_err(|_| CryptoError::Malformed("not base64"))?;
        if buf.is_empty() || buf.len() % 16 != 0 {
            return Err(CryptoError::Malformed("not a whole number of AES blocks"));
        }
        let plain = cbc::Decryptor::<aes::Aes256>::new(&self.key.into(), self.key[..16].into())
            .decrypt_padded_mut::<NoPadding>(&mut buf)
            .map_err(|_| CryptoError::Malformed("AES"))?;
        let pad = usize::from(*plain.last().ok_or(CryptoError::Malformed("empty"))?);
        if !(1..=PAD_BLOCK).contains(&pad) || pad > plain.len() {
            return Err(CryptoError::Malformed("padding"));
        }
        let plain = &plain[..plain.len() - pad];
        if plain.len() < 20 {
            return Err(CryptoError::Malformed("too short"));
        }
        let len = u32::from_be_bytes(plain[16..20].try_into().expect("4 bytes")) as usize;
        let rest = &plain[20..];
        if len > rest.len() {
            return Err(CryptoError::Malformed("length"));
        }
        let (message, appid) = rest.split_at(len);
        let appid = String::from_utf8_lossy(appid);
        if appid != self.appid {
            return Err(CryptoError::WrongAppid(appid.into_owned()));
        }
        String::from_utf8(message.to_vec()).map_err(|_| CryptoError::Malformed("not UTF-8"))
    }

    /// Encrypts `message` as WeChat does (used to answer encrypted replies
    /// and by tests that play WeChat).
    pub fn encrypt(&self, message: &str) -> String {
        let mut plain = Vec::with_capacity(message.len() + 64);
        plain.extend_from_slice(&rand::random::<[u8; 16]>());
        plain.extend_from_slice(&(message.len() as u32).to_be_bytes());
        plain.extend_from_slice(message.as_bytes());
        plain.extend_from_slice(self.appid.as_bytes());
        let pad = PAD_BLOCK - plain.len() % PAD_BLOCK;
        plain.extend(std::iter::repeat_n(pad as u8, pad));
        let len = plain.len();
        let cipher = cbc::Encryptor::<aes::Aes256>::new(&self.key.into(), self.key[..16].into())
            .encrypt_padded_mut::<NoPadding>(&mut plain, len)
            .expect("the buffer is a whole number of blocks");
        base64::engine::general_purpose::STANDARD.encode(cipher)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample of WeChat's message-encryption documentation.
    const KEY: &str = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";

    #[test]
    fn round_trip_signature_and_appid() {
        let crypto = MessageCrypto::new("pamtest", KEY, "wxb11529c136998cb6").unwrap();
        let xml = "<xml><InfoType><![CDATA[component_verify_ticket]]></InfoType></xml>";
        let encrypted = crypto.encrypt(xml);
        let signature = crypto.signature("1409304348", "xxxxxx", &encrypted);
        assert_eq!(crypto.open(&signature, "1409304348", "xxxxxx", &encrypted).unwrap(), xml);
        assert_eq!(crypto.open(&signature, "1409304349", "xxxxxx", &encrypted), Err(CryptoError::BadSignature));
        let other = MessageCrypto::new("pamtest", KEY, "wxother").unwrap();
        assert!(matches!(other.decrypt(&encrypted), Err(CryptoError::WrongAppid(a)) if a == "wxb11529c136998cb6"));
        assert!(matches!(crypto.decrypt("bm90IGJsb2Nrcw=="), Err(CryptoError::Malformed(_))));
    }

    /// The sample message of WeChat's own message-encryption SDK
    /// (WXBizMsgCrypt): token `spamtest`, appid `wx2c2769f8efd9abc2`.
    #[test]
    fn wechats_published_sample_verifies_and_decrypts() {
        let encrypted = "hyzAe4OzmOMbd6TvGdIOO6uBmdJoD0Fk53REIHvxYtJlE2B655HuD0m8KUePWB3+LrPXo87wzQ1QLvbeUgmBM4x6F8PGHQHFVAFmOD2LdJF9FrXpbUAh0B5GIItb52sn896wVsMSHGuPE328HnRGBcrS7C41IzDWyWNlZkyyXwon8T332jisa+h6tEDYsVticbSnyU8dKOIbgU6ux5VTjg3yt+WGzjlpKn6NPhRjpA912xMezR4kw6KWwMrCVKSVCZciVGCgavjIQ6X8tCOp3yZbGpy0VxpAe+77TszTfRd5RJSVO/HTnifJpXgCSUdUue1v6h0EIBYYI1BD1DlD+C0CR8e6OewpusjZ4uBl9FyJvnhvQl+q5rv1ixrcpCumEPo5MJSgM9ehVsNPfUM669WuMyVWQLCzpu9GhglF2PE=";
        let crypto = MessageCrypto::new("spamtest", KEY, "wx2c2769f8efd9abc2").unwrap();
        let xml =
            crypto.open("5d197aaffba7e9b25a30732f161a50dee96bd5fa", "1409735669", "1320562132", encrypted).unwrap();
        assert!(xml.starts_with("<xml>") && xml.ends_with("</xml>"), "{xml}");
        assert!(roxmltree::Document::parse(&xml).is_ok(), "{xml}");
    }

    #[test]
    fn signature_is_sha1_of_the_sorted_parts() {
        let crypto = MessageCrypto::new("token", KEY, "wx").unwrap();
        // sha1("1noncetoken" sorted: "1", "enc", "nonce", "token")
        let expected = hex::encode(Sha1::digest(b"1encnoncetoken"));
        assert_eq!(crypto.signature("1", "nonce", "enc"), expected);
    }

    #[test]
    fn keys_with_trailing_bits_are_accepted_and_bad_keys_refused() {
        assert!(MessageCrypto::new("t", KEY, "wx").is_ok(), "G carries non-zero trailing bits");
        assert_eq!(MessageCrypto::new("t", "short", "wx").err(), Some(CryptoError::BadKey));
        assert_eq!(MessageCrypto::new("t", &"!".repeat(43), "wx").err(), Some(CryptoError::BadKey));
    }
}
