//! POST /telemetry: the body, under the server's own size limit, folded into a summary without
//! materialising the readings: incrementally from the body stream (jsoncost-stream, the
//! default), or buffered whole first and parsed as one slice (for comparison).

use std::fmt;

use axum::body::Body;
use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use jsoncost_shapes::Reading;
use jsoncost_stream::{ErrorKind, TelemetryAggregate};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::errors::ApiError;

/// How POST /telemetry parses its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TelemetryParse {
    /// Element by element as the body arrives (bounded memory: one chunk plus one reading).
    #[default]
    Incremental,
    /// The whole body read into memory, then parsed as one slice.
    Buffered,
}

/// Min, max and mean of one reading field; all `None` when there were no readings.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct FieldStats {
    /// Smallest value.
    pub min: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
    /// Mean value.
    pub mean: Option<f64>,
}

/// The answer to POST /telemetry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TelemetrySummary {
    /// The body's `DeviceId`.
    pub device_id: String,
    /// Readings in the body.
    pub count: u64,
    /// Of the readings' `Temperature`.
    pub temperature: FieldStats,
    /// Of the readings' `Humidity`.
    pub humidity: FieldStats,
}

#[derive(Default)]
struct Running {
    min: f64,
    max: f64,
    sum: f64,
}

impl Running {
    fn add(&mut self, first: bool, v: f64) {
        if first {
            *self = Running { min: v, max: v, sum: 0.0 };
        }
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += v;
    }

    fn stats(&self, count: u64) -> FieldStats {
        if count == 0 {
            return FieldStats::default();
        }
        FieldStats {
            min: Some(self.min),
            max: Some(self.max),
            mean: Some(self.sum / count as f64),
        }
    }
}

#[derive(Default)]
struct Fold {
    count: u64,
    temperature: Running,
    humidity: Running,
}

/// Folds the `Readings` array element by element. Written by hand (a serde seed) because the
/// derived `Telemetry` would first collect every reading into a Vec: 32 MB for 1,000,000.
struct ReadingsFold<'a>(&'a mut Fold);

impl<'de> DeserializeSeed<'de> for ReadingsFold<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ReadingsFold<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of readings {Timestamp, Temperature, Humidity}")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(r) = seq.next_element::<Reading>()? {
            let first = self.0.count == 0;
            self.0.temperature.add(first, r.temperature);
            self.0.humidity.add(first, r.humidity);
            self.0.count += 1;
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(field_identifier)]
enum Field {
    DeviceId,
    Readings,
    #[serde(other)]
    Other,
}

struct SummaryVisitor;

impl<'de> Visitor<'de> for SummaryVisitor {
    type Value = TelemetrySummary;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(r#"a telemetry object {"DeviceId": .., "Readings": [..]}"#)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TelemetrySummary, A::Error> {
        let mut device_id: Option<String> = None;
        let mut fold: Option<Fold> = None;
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::DeviceId if device_id.is_some() => return Err(de::Error::duplicate_field("DeviceId")),
                Field::DeviceId => device_id = Some(map.next_value()?),
                Field::Readings if fold.is_some() => return Err(de::Error::duplicate_field("Readings")),
                Field::Readings => {
                    let mut f = Fold::default();
                    map.next_value_seed(ReadingsFold(&mut f))?;
                    fold = Some(f);
                }
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let device_id = device_id.ok_or_else(|| de::Error::missing_field("DeviceId"))?;
        let fold = fold.ok_or_else(|| de::Error::missing_field("Readings"))?;
        Ok(TelemetrySummary {
            device_id,
            count: fold.count,
            temperature: fold.temperature.stats(fold.count),
            humidity: fold.humidity.stats(fold.count),
        })
    }
}

/// Byte offset of a serde_json error in `input`: serde_json reports a 1-based line and a column
/// counted in bytes, where column 0 means "at the newline ending the previous line".
fn byte_offset(input: &[u8], line: usize, column: usize) -> u64 {
    let line_start = if line <= 1 {
        0
    } else {
        input
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map_or(input.len(), |(i, _)| i + 1)
    };
    (line_start + column).saturating_sub(1).min(input.len()) as u64
}

/// Summarises a whole telemetry body.
pub fn summarize(body: &[u8]) -> Result<TelemetrySummary, ApiError> {
    let mut d = serde_json::Deserializer::from_slice(body);
    let summary = d.deserialize_map(SummaryVisitor).and_then(|s| d.end().map(|()| s));
    summary.map_err(|e| {
        use serde_json::error::Category;
        let message = e.to_string();
        match e.classify() {
            // The body ended early: the missing byte is the one after the last.
            Category::Eof => ApiError::MalformedJson {
                offset: body.len() as u64,
                message,
            },
            Category::Data => ApiError::WrongShape {
                offset: byte_offset(body, e.line(), e.column()),
                message,
            },
            Category::Syntax | Category::Io => ApiError::MalformedJson {
                offset: byte_offset(body, e.line(), e.column()),
                message,
            },
        }
    })
}

/// What [`read_body`] reserves at most before a body's bytes arrive.
const INITIAL_BODY_CAPACITY: u64 = 1 << 20;

/// Reads a request body of at most `limit` bytes. A declared Content-Length over the limit is
/// refused before reading; an undeclared one is refused as soon as the limit is crossed.
/// (axum's `DefaultBodyLimit` is for its extractors; this route takes the raw body stream.)
pub async fn read_body(body: Body, content_length: Option<u64>, limit: u64) -> Result<Bytes, ApiError> {
    if content_length.is_some_and(|n| n > limit) {
        return Err(ApiError::BodyTooLarge { limit });
    }
    let mut body = Limited::new(body, usize::try_from(limit).unwrap_or(usize::MAX));
    // Reserved up to a chunk's worth before the bytes arrive: a Content-Length alone (and a
    // client that then sends nothing) does not hold the whole limit.
    let mut buf = Vec::with_capacity(content_length.unwrap_or(0).min(INITIAL_BODY_CAPACITY) as usize);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            if e.downcast_ref::<LengthLimitError>().is_some() {
                ApiError::BodyTooLarge { limit }
            } else {
                ApiError::BodyRead {
                    message: format!("after {} bytes: {e}", buf.len()),
                }
            }
        })?;
        if let Some(data) = frame.data_ref() {
            buf.extend_from_slice(data);
        }
    }
    Ok(buf.into())
}

fn limit_crossed(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.downcast_ref::<LengthLimitError>().is_some())
}

/// Summarises a telemetry body as it streams in: each reading is parsed (serde_json, by
/// jsoncost-stream's framer) as soon as its bytes have arrived, then dropped.
pub async fn summarize_stream(body: Body, content_length: Option<u64>, limit: u64) -> Result<TelemetrySummary, ApiError> {
    if content_length.is_some_and(|n| n > limit) {
        return Err(ApiError::BodyTooLarge { limit });
    }
    let chunks = Limited::new(body, usize::try_from(limit).unwrap_or(usize::MAX)).into_data_stream();
    // Only DeviceId is kept: the other members around the array are validated and dropped, as
    // the buffered parse ignores them, so memory stays one chunk and one value whatever the
    // body holds; a repeated DeviceId is refused as the buffered parse refuses it.
    let config = jsoncost_stream::Config::new("/Readings")
        .map_err(|e| ApiError::Internal { message: e.to_string() })?
        .keep(["/DeviceId"]);
    let mut readings = config.stream::<Reading, _>(chunks);
    let mut aggregate = TelemetryAggregate::default();
    while let Some(reading) = readings.next().await {
        let reading = reading.map_err(|e| {
            let (offset, message) = (e.offset(), e.to_string());
            match e.into_kind() {
                ErrorKind::Io(io) if limit_crossed(&io) => ApiError::BodyTooLarge { limit },
                ErrorKind::Io(io) => ApiError::BodyRead {
                    message: format!("after {offset} bytes: {io}"),
                },
                ErrorKind::WrongShape { .. }
                | ErrorKind::PointerNotFound { .. }
                | ErrorKind::NotAnArray { .. }
                | ErrorKind::DuplicateKey { .. }
                | ErrorKind::TooLarge { .. }
                | ErrorKind::KeptTooLarge { .. }
                | ErrorKind::TooDeep { .. } => ApiError::WrongShape { offset, message },
                ErrorKind::Truncated { .. } | ErrorKind::BadToken { .. } | ErrorKind::InvalidUtf8 => {
                    ApiError::MalformedJson { offset, message }
                }
            }
        })?;
        aggregate.push(&reading);
    }
    let end = readings.bytes_read();
    let field = readings.field("/DeviceId").ok_or_else(|| ApiError::WrongShape {
        offset: end,
        message: "missing field `DeviceId`".into(),
    })?;
    let device_id = field.parse::<String>().map_err(|e| ApiError::WrongShape {
        offset: field.offset,
        message: format!("DeviceId: {e}"),
    })?;
    let stats = |s: &jsoncost_stream::RunningStats| FieldStats {
        min: s.min(),
        max: s.max(),
        mean: s.mean(),
    };
    Ok(TelemetrySummary {
        device_id,
        count: aggregate.count(),
        temperature: stats(&aggregate.temperature),
        humidity: stats(&aggregate.humidity),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_point_at_the_offending_byte() {
        let cases: [(&[u8], u64); 4] = [
            (b"{\"DeviceId\": x}", 13),
            (b"{\n  \"DeviceId\": \"d\",\n  \"Readings\": [1]\n}", 36),
            (b"{\"DeviceId\":\"d\",\"Readings\":[]", 29),
            (b"[]", 0),
        ];
        for (input, want) in cases {
            let err = summarize(input).unwrap_err();
            let got = match err {
                ApiError::MalformedJson { offset, .. } | ApiError::WrongShape { offset, .. } => offset,
                other => panic!("unexpected {other:?}"),
            };
            assert_eq!(got, want, "input {:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn folds_readings_exactly() {
        let body = br#"{"DeviceId":"d-1","Extra":{"a":[1]},"Readings":[
            {"Timestamp":"2025-01-01T00:00:00Z","Temperature":20.5,"Humidity":40.0},
            {"Timestamp":"2025-01-01T00:00:01Z","Temperature":18.5,"Humidity":60.0}]}"#;
        let s = summarize(body).unwrap();
        assert_eq!(s.device_id, "d-1");
        assert_eq!(s.count, 2);
        assert_eq!(
            s.temperature,
            FieldStats {
                min: Some(18.5),
                max: Some(20.5),
                mean: Some(19.5)
            }
        );
        assert_eq!(
            s.humidity,
            FieldStats {
                min: Some(40.0),
                max: Some(60.0),
                mean: Some(50.0)
            }
        );
        let empty = summarize(br#"{"Readings":[],"DeviceId":"e"}"#).unwrap();
        assert_eq!((empty.count, empty.temperature), (0, FieldStats::default()));
    }

    #[test]
    fn wrong_shapes_are_data_errors() {
        for body in [
            &br#"{"DeviceId":"d"}"#[..],
            br#"{"DeviceId":"d","Readings":[{"Temperature":1}]}"#,
            br#"{"DeviceId":1,"Readings":[]}"#,
        ] {
            assert!(
                matches!(summarize(body), Err(ApiError::WrongShape { .. })),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        let trailing = summarize(b"{\"DeviceId\":\"d\",\"Readings\":[]} x");
        assert!(matches!(trailing, Err(ApiError::MalformedJson { offset: 31, .. })), "{trailing:?}");
    }
}
