//! What a table shows, as data: computed once from its rows by the experiments library, worded
//! by every renderer and read by the advisor, so no two places derive the same figure apart.

use serde::{Deserialize, Serialize};

/// A table's summary. Untagged: each form has its own fields, and results files written before
/// the summary was data (an array of sentences) still read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Summary {
    /// A store table's JSON share and cheapest typed path.
    Store(StoreSummary),
    /// A stream table's incremental-against-buffered figures per library.
    Stream(StreamSummary),
    /// A suite table of the safety experiment: one library's conformance counts.
    Conformance(crate::safety::ConformanceSummary),
    /// Sentences from an older results file, shown as they are.
    Sentences(Vec<String>),
}

impl Summary {
    /// The store summary, when this is one.
    pub fn store(&self) -> Option<&StoreSummary> {
        match self {
            Summary::Store(s) => Some(s),
            _ => None,
        }
    }
}

/// A store table: how much of a read is JSON work, and what the cheapest typed path removes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreSummary {
    /// The row the read is measured by (`default`).
    pub baseline: String,
    /// The row that reads the bytes and discards them (`floor`).
    pub floor: String,
    /// The baseline's mean read, ns.
    pub read_ns: f64,
    /// The floor's mean, ns.
    pub floor_ns: f64,
    /// JSON work in the baseline's read: the mean per-round difference `read − floor` of an
    /// interleaved table (else `read_ns - floor_ns`), never negative.
    pub json_ns: f64,
    /// `json_ns / read_ns`.
    pub json_share: f64,
    /// Interleaved tables: the per-round `read − floor` difference (ns) with its 99% interval.
    /// An interval reaching 0 means the JSON work is within the noise of the read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_interval: Option<crate::paired::Interval>,
    /// The fastest ok `typed/*` or `borrowed/*` row, when there is one.
    pub cheapest_typed: Option<TypedPath>,
}

impl StoreSummary {
    /// No JSON work can be told from the noise: the paired interval reaches 0 (or below).
    pub fn within_noise(&self) -> bool {
        self.json_interval.is_some_and(|i| i.low <= 0.0) || self.json_ns <= 0.0
    }

    /// The JSON share's interval: `json_interval` over the read of the same rounds, never
    /// below 0.
    pub fn share_interval(&self) -> Option<(f64, f64)> {
        let i = self.json_interval?;
        // json_share = estimate / (mean read of the rounds kept): the same scale for the ends.
        let read = if i.estimate > 0.0 && self.json_share > 0.0 {
            i.estimate / self.json_share
        } else {
            self.read_ns
        };
        (read > 0.0).then(|| ((i.low / read).max(0.0), (i.high / read).max(0.0)))
    }
}

/// The cheapest typed path of a store table, against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypedPath {
    /// The row, `style/library`.
    pub method: String,
    /// Its mean read, ns.
    pub mean_ns: f64,
    /// Share of the baseline's JSON work it removes: `(read_ns - mean_ns) / json_ns`.
    pub removed_share: f64,
    /// The saving is beyond the noise: on an interleaved table the paired interval of
    /// `baseline − typed` per round lies wholly above 0; on a sequential one its interval
    /// (mean ± Error) lies wholly below the baseline's. Only then is a saving claimed (on a
    /// network store the round trip's noise can exceed the JSON work).
    pub beyond_noise: bool,
    /// Its bytes allocated per read.
    pub allocated_bytes: Option<f64>,
    /// The baseline's bytes allocated per read.
    pub baseline_allocated_bytes: Option<f64>,
}

/// A stream table: each library's incremental parse against its buffered one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamSummary {
    /// One entry per library with both an incremental and a buffered row.
    pub libraries: Vec<StreamLibrary>,
}

/// One library's incremental parse against its buffered one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamLibrary {
    /// The library (`serde_json`, `sonic-rs`, `simd-json`).
    pub library: String,
    /// Incremental throughput, MB/s.
    pub incremental_mb_per_s: f64,
    /// Buffered throughput, MB/s.
    pub buffered_mb_per_s: f64,
    /// Incremental's throughput over buffered's, paired per round (buffered's time over
    /// incremental's in each round: [`crate::Row::paired_ratio_to`]), with its 99% interval;
    /// absent when the rows were not measured in the same rounds (a sequential table, an older
    /// file), and then only the two means' quotient is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_ratio: Option<crate::paired::Interval>,
    /// Incremental row's peak live heap, bytes.
    pub incremental_peak_bytes: Option<u64>,
    /// Buffered row's peak live heap, bytes.
    pub buffered_peak_bytes: Option<u64>,
    /// The `incremental-aggregate` row's peak live heap, bytes (readings folded into an
    /// aggregate as they arrive, none kept).
    pub aggregate_peak_bytes: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_files_with_sentences_still_read() {
        let s: Summary = serde_json::from_str(r#"["JSON is 1.0 µs of a 2.0 µs read (50%)."]"#).unwrap();
        assert_eq!(s, Summary::Sentences(vec!["JSON is 1.0 µs of a 2.0 µs read (50%).".into()]));
        let store = Summary::Store(StoreSummary {
            baseline: "default".into(),
            floor: "floor".into(),
            read_ns: 2000.0,
            floor_ns: 1000.0,
            json_ns: 1000.0,
            json_share: 0.5,
            json_interval: None,
            cheapest_typed: None,
        });
        let back: Summary = serde_json::from_str(&serde_json::to_string(&store).unwrap()).unwrap();
        assert_eq!(back, store);
        let stream = Summary::Stream(StreamSummary { libraries: vec![] });
        let back: Summary = serde_json::from_str(&serde_json::to_string(&stream).unwrap()).unwrap();
        assert_eq!(back, stream);
    }
}
