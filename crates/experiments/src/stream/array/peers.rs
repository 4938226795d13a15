//! The stream peers of `peers` (the parent's sibling) for a user's element type at any
//! pointer: `visitor/serde_json` (dtolnay's `DeserializeSeed` recipe over
//! `Deserializer::from_reader`, the elements kept), `visitor-aggregate/serde_json` (the same
//! visit keeping none: each element is handed to the fold and dropped) and `struson/serde`
//! (struson's pull reader to the array, each element through its serde integration).

use std::fmt;
use std::io::{BufReader, Read};
use std::marker::PhantomData;
use std::path::Path;

use jsoncost_codecs::gate::{self, Verdict};
use jsoncost_codecs::{Contract, Effort, StrategyId};
use serde::Serialize;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use struson::reader::{JsonReader, JsonStreamReader, ValueType};

use crate::stream::whole_run::{WholeRun, open};

/// A row here: a whole run yields the elements it went through (as the array table's).
type ArrayStrategy = WholeRun<u64>;

/// The three peers' rows for `E`, the array at `tokens` (the pointer's) of the file at `path`.
pub(super) fn rows<E: Serialize + DeserializeOwned + 'static>(
    path: &Path,
    pointer: &str,
    tokens: &[String],
    bytes: u64,
) -> Vec<ArrayStrategy> {
    type Walk<E> = fn(&Path, &[String], &mut dyn FnMut(E)) -> Result<u64, String>;
    let row = |id: StrategyId, contract: Contract, keep: bool, walk: Walk<E>| {
        let (p, t) = (path.to_path_buf(), tokens.to_vec());
        let (p2, t2, shown, checked) = (p.clone(), t.clone(), pointer.to_string(), id.clone());
        WholeRun {
            id,
            contract,
            effort: Effort::Code,
            run: Box::new(move || match keep {
                true => {
                    let mut kept = Vec::new();
                    walk(&p, &t, &mut |e: E| kept.push(e))?;
                    Ok(std::hint::black_box(kept).len() as u64)
                }
                false => walk(&p, &t, &mut |e: E| drop(std::hint::black_box(e))),
            }),
            // The gate sees every element, whichever the row keeps.
            check: Box::new(move || {
                let mut elements = Vec::new();
                match walk(&p2, &t2, &mut |e: E| elements.push(e)) {
                    Err(e) => Verdict::Fail(e),
                    Ok(_) => match open(&p2) {
                        Err(e) => Verdict::Fail(e),
                        Ok(f) => {
                            gate::verify_streamed::<serde_json::Value, E, _>(&checked, f, &shown, None, &mut elements.into_iter().map(Ok))
                        }
                    },
                }
            }),
            bytes,
            refused: None,
        }
    };
    vec![
        row(StrategyId::new("visitor", "serde_json"), Contract::TypedValue, true, visit::<E>),
        row(
            StrategyId::new("visitor-aggregate", "serde_json"),
            Contract::Aggregate,
            false,
            visit::<E>,
        ),
        row(StrategyId::new("struson", "serde"), Contract::TypedValue, true, pull::<E>),
    ]
}

/// The element a pointer token names in an array (RFC 6901), as the array table reads it.
fn index(token: &str) -> Option<usize> {
    jsoncost_stream::array_index(token).and_then(|i| usize::try_from(i).ok())
}

/// serde_json's visitor over the file: each element of the array at `tokens` handed to
/// `each`, everything else skipped; how many there were.
fn visit<E: DeserializeOwned>(path: &Path, tokens: &[String], each: &mut dyn FnMut(E)) -> Result<u64, String> {
    let mut de = serde_json::Deserializer::from_reader(BufReader::new(open(path)?));
    let n = EachAt::<E> {
        tokens,
        each,
        element: PhantomData,
    }
    .deserialize(&mut de)
    .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(n)
}

/// A seed walking a JSON pointer to an array and handing its elements to `each`.
struct EachAt<'p, 'f, E> {
    tokens: &'p [String],
    each: &'f mut dyn FnMut(E),
    element: PhantomData<E>,
}

impl<'de, E: DeserializeOwned> DeserializeSeed<'de> for EachAt<'_, '_, E> {
    type Value = u64;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        match self.tokens.is_empty() {
            true => d.deserialize_seq(self),
            false => d.deserialize_any(self),
        }
    }
}

impl<'de, E: DeserializeOwned> Visitor<'de> for EachAt<'_, '_, E> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.tokens.first() {
            None => f.write_str("the array of elements"),
            Some(t) => write!(f, "an object or array holding {t:?}"),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let Some((token, rest)) = self.tokens.split_first() else {
            return Err(de::Error::custom("the pointer names an object, not an array"));
        };
        let mut found = None;
        let each = self.each;
        while let Some(key) = map.next_key::<String>()? {
            if found.is_none() && key == *token {
                found = Some(map.next_value_seed(EachAt::<E> {
                    tokens: rest,
                    each: &mut *each,
                    element: PhantomData,
                })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        found.ok_or_else(|| de::Error::custom(format!("no member {token:?}")))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let each = self.each;
        let Some((token, rest)) = self.tokens.split_first() else {
            // The array itself: its elements, one at a time.
            let mut n = 0;
            while let Some(e) = seq.next_element::<E>()? {
                each(e);
                n += 1;
            }
            return Ok(n);
        };
        let at = index(token).ok_or_else(|| de::Error::custom(format!("{token:?} is not an array index")))?;
        let mut found = None;
        let mut i = 0;
        loop {
            if i == at {
                let seed = EachAt::<E> {
                    tokens: rest,
                    each: &mut *each,
                    element: PhantomData,
                };
                match seq.next_element_seed(seed)? {
                    Some(n) => found = Some(n),
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            i += 1;
        }
        found.ok_or_else(|| de::Error::custom(format!("no element {at}")))
    }
}

/// struson's pull reader over the file: to the array at `tokens`, each element deserialized
/// by its serde integration, the rest skipped.
fn pull<E: DeserializeOwned>(path: &Path, tokens: &[String], each: &mut dyn FnMut(E)) -> Result<u64, String> {
    let mut json = JsonStreamReader::new(open(path)?);
    let n = pull_at(&mut json, tokens, each).map_err(|e| e.to_string())?;
    json.consume_trailing_whitespace().map_err(|e| e.to_string())?;
    Ok(n)
}

fn pull_at<R: Read, E: DeserializeOwned>(
    json: &mut JsonStreamReader<R>,
    tokens: &[String],
    each: &mut dyn FnMut(E),
) -> Result<u64, Box<dyn std::error::Error>> {
    let Some((token, rest)) = tokens.split_first() else {
        json.begin_array()?;
        let mut n = 0;
        while json.has_next()? {
            each(json.deserialize_next::<E>()?);
            n += 1;
        }
        json.end_array()?;
        return Ok(n);
    };
    let mut found = None;
    match json.peek()? {
        ValueType::Object => {
            json.begin_object()?;
            while json.has_next()? {
                let name = json.next_name_owned()?;
                if found.is_none() && name == *token {
                    found = Some(pull_at(json, rest, each)?);
                } else {
                    json.skip_value()?;
                }
            }
            json.end_object()?;
        }
        ValueType::Array => {
            let at = index(token).ok_or_else(|| format!("{token:?} is not an array index"))?;
            json.begin_array()?;
            let mut i = 0;
            while json.has_next()? {
                if i == at {
                    found = Some(pull_at(json, rest, each)?);
                } else {
                    json.skip_value()?;
                }
                i += 1;
            }
            json.end_array()?;
        }
        other => return Err(format!("a {other:?} where the pointer goes on at {token:?}").into()),
    }
    found.ok_or_else(|| format!("nothing at {token:?}").into())
}
