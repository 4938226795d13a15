//! What jsoncost says about a JSON document a user hands it (`--payload`): a byte order mark,
//! text that is not JSON, and JSON that serde_json refuses are three different problems.

use serde::de::IgnoredAny;

/// The largest document read by default (`--max-payload-mib`, and a harness's
/// `Sample::file`): it is held in memory several times.
pub const MAX_PAYLOAD_MIB: u64 = 256;

/// The UTF-8 encoding of U+FEFF, which some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A hint when `bytes` start with a UTF-8 byte order mark, which JSON text must not (RFC 8259,
/// section 8.1) and which every library here rejects as a bad token at byte 0.
pub fn bom_problem(bytes: &[u8]) -> Option<String> {
    bytes.starts_with(BOM).then(|| {
        "starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON text must not have \
         (RFC 8259, section 8.1); save the file without it"
            .to_string()
    })
}

/// Checks `bytes` is a JSON document serde_json reads (syntax, UTF-8, nesting at most 128,
/// numbers that fit an f64), so no library sees one it would crash or loop on. The error says
/// which of the problems it is, as the rest of a sentence naming the file.
pub fn check_document(bytes: &[u8]) -> Result<(), String> {
    if let Some(bom) = bom_problem(bytes) {
        return Err(bom);
    }
    // A full Value, not IgnoredAny: ignoring a string skips its UTF-8 check.
    let Err(e) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Ok(());
    };
    // serde_json files a too-deep document and a number beyond f64 (1e400) under the same
    // category as a syntax error, but they are valid JSON (RFC 8259 sets no limit on either).
    // Its ignoring parser checks only the grammar (iteratively, with no depth limit, and
    // without reading numbers into f64), so with the UTF-8 check beside it, it tells them apart.
    let grammatical = std::str::from_utf8(bytes).is_ok() && serde_json::from_slice::<IgnoredAny>(bytes).is_ok();
    if grammatical {
        Err(format!(
            "is valid JSON that serde_json refuses: {e} (it nests at most 128 deep and reads numbers \
             into an f64; jsoncost checks every document with it before any library sees one)"
        ))
    } else {
        Err(format!("is not valid JSON: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_json_passes() {
        assert_eq!(check_document(br#"{"a":[1,2.5,"x"]}"#), Ok(()));
    }

    #[test]
    fn the_three_problems_are_told_apart() {
        let not_json = check_document(b"{\"a\":}").unwrap_err();
        assert!(
            not_json.starts_with("is not valid JSON: expected value at line 1 column 6"),
            "{not_json}"
        );

        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let refused = check_document(deep.as_bytes()).unwrap_err();
        assert!(
            refused.starts_with("is valid JSON that serde_json refuses: recursion limit exceeded"),
            "{refused}"
        );
        let big = check_document(b"[1e400]").unwrap_err();
        assert!(
            big.starts_with("is valid JSON that serde_json refuses: number out of range"),
            "{big}"
        );

        // Unbalanced deep nesting is not JSON, whatever the depth.
        let broken = check_document("[".repeat(200).as_bytes()).unwrap_err();
        assert!(broken.starts_with("is not valid JSON"), "{broken}");
        // Invalid UTF-8 inside a string is not JSON either.
        let bad_utf8 = check_document(b"[\"\xff\"]").unwrap_err();
        assert!(bad_utf8.starts_with("is not valid JSON"), "{bad_utf8}");

        let bom = check_document(b"\xEF\xBB\xBF{}").unwrap_err();
        assert!(bom.starts_with("starts with a UTF-8 byte order mark"), "{bom}");
        assert_eq!(bom_problem(b"{}"), None);
    }
}
