//! Statistics of timing samples, kept apart from timing (as divan does).
//!
//! Percentiles use linear interpolation between order statistics (Hyndman & Fan type 7, the
//! default of R and NumPy). Error is half of the 99.9% confidence interval of the mean with
//! Student's t, as BenchmarkDotNet reports it.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Confidence level of the Error column.
pub const CONFIDENCE: f64 = 0.999;

/// Statistics of a sample set (all values in the samples' unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleStats {
    /// Samples.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator); 0 for a single sample.
    pub stddev: f64,
    /// Half-width of the 99.9% confidence interval of the mean; 0 for fewer than 2 samples.
    pub error: f64,
    /// Median (type 7 interpolation).
    pub median: f64,
    /// 95th percentile (type 7 interpolation).
    pub p95: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
}

impl SampleStats {
    /// Summarises `samples`; `None` when there are none or one is not finite.
    pub fn of(samples: &[f64]) -> Option<SampleStats> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let n = samples.len();
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mean = samples.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let error = if n > 1 {
            t_quantile_two_sided(CONFIDENCE, (n - 1) as f64) * stddev / (n as f64).sqrt()
        } else {
            0.0
        };
        Some(SampleStats {
            n,
            mean,
            stddev,
            error,
            median: percentile_sorted(&sorted, 0.5),
            p95: percentile_sorted(&sorted, 0.95),
            min: sorted[0],
            max: sorted[n - 1],
        })
    }

    /// Error as a share of the mean (the stop rule's measure).
    pub fn relative_error(&self) -> f64 {
        if self.mean == 0.0 { 0.0 } else { self.error / self.mean }
    }
}

/// The t value whose two-sided interval holds `confidence` of Student's t with `df` degrees of
/// freedom, e.g. 4.140 for 99.9% at 14 degrees of freedom.
pub fn t_quantile_two_sided(confidence: f64, df: f64) -> f64 {
    let t = StudentsT::new(0.0, 1.0, df).expect("degrees of freedom are positive");
    t.inverse_cdf(1.0 - (1.0 - confidence) / 2.0)
}

/// The z value whose two-sided interval holds `confidence` of the standard normal, e.g. 2.576
/// for 99%.
pub fn normal_quantile_two_sided(confidence: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(1.0 - (1.0 - confidence) / 2.0)
}

/// Type-7 percentile of already sorted values, `p` in [0, 1].
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of no values");
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Tukey's upper fence Q3 + k·IQR of the values.
pub fn tukey_upper_fence(values: &[f64], k: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let q1 = percentile_sorted(&sorted, 0.25);
    let q3 = percentile_sorted(&sorted, 0.75);
    q3 + k * (q3 - q1)
}

/// Removes upper outliers (above Tukey's fence with k = 1.5), keeping order; returns the kept
/// values and how many were removed. Lower outliers are kept: a run cannot be faster than the
/// code allows, but it can be slowed by the machine.
pub fn remove_upper_outliers(values: &[f64]) -> (Vec<f64>, usize) {
    if values.len() < 4 {
        return (values.to_vec(), 0);
    }
    let fence = tukey_upper_fence(values, 1.5);
    let kept: Vec<f64> = values.iter().copied().filter(|&x| x <= fence).collect();
    let removed = values.len() - kept.len();
    (kept, removed)
}

/// Ratio and RatioSD as BenchmarkDotNet computes them: the mean and standard deviation of all
/// pairwise quotients `row[j] / baseline[i]`.
pub fn ratio_of_samples(baseline: &[f64], row: &[f64]) -> Option<(f64, f64)> {
    if baseline.is_empty() || row.is_empty() || baseline.iter().any(|&b| b <= 0.0) {
        return None;
    }
    let quotients: Vec<f64> = baseline.iter().flat_map(|&b| row.iter().map(move |&x| x / b)).collect();
    let s = SampleStats::of(&quotients)?;
    Some((s.mean, s.stddev))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn summary_of_fixed_sample_matches_hand_computation() {
        // 15 values: mean 10, deviations give sum of squares 28 -> var 2, sd sqrt(2).
        let xs = [
            8.0, 9.0, 9.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 11.0, 11.0, 12.0, 10.0,
        ];
        let s = SampleStats::of(&xs).unwrap();
        assert_eq!(s.n, 15);
        assert!(close(s.mean, 10.0, 1e-12));
        let ss: f64 = xs.iter().map(|x| (x - 10.0f64).powi(2)).sum();
        assert_eq!(ss, 12.0);
        assert!(close(s.stddev, (12.0f64 / 14.0).sqrt(), 1e-12));
        assert_eq!(s.median, 10.0);
        assert_eq!(s.min, 8.0);
        assert_eq!(s.max, 12.0);
        // p95: h = 14 * 0.95 = 13.3 -> sorted[13] + 0.3 * (sorted[14] - sorted[13]) = 11 + 0.3 * 1
        assert!(close(s.p95, 11.3, 1e-12));
        // Error = t(0.9995, 14) * sd / sqrt(15)
        assert!(close(s.error, 4.140 * s.stddev / 15f64.sqrt(), 1e-3 * s.stddev));
    }

    #[test]
    fn t_quantile_for_99_9_percent_at_14_df_is_4_140() {
        assert!(close(t_quantile_two_sided(0.999, 14.0), 4.140, 5e-4));
        // And the familiar 95% value at 10 df.
        assert!(close(t_quantile_two_sided(0.95, 10.0), 2.228, 5e-4));
        assert!(close(normal_quantile_two_sided(0.99), 2.576, 5e-4));
    }

    #[test]
    fn median_of_even_count_interpolates() {
        let s = SampleStats::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(s.median, 2.5);
        assert_eq!(s.mean, 2.5);
    }

    #[test]
    fn tukey_fence_and_outlier_removal() {
        // sorted 1..=8 and 100: Q1 = 3, Q3 = 7 (type 7 on 9 values), IQR 4, fence 13.
        let xs = [5.0, 1.0, 2.0, 3.0, 100.0, 4.0, 6.0, 7.0, 8.0];
        assert_eq!(tukey_upper_fence(&xs, 1.5), 13.0);
        let (kept, removed) = remove_upper_outliers(&xs);
        assert_eq!(removed, 1);
        assert_eq!(kept, vec![5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0]);
        // A low value is never removed.
        let (_, removed) = remove_upper_outliers(&[-100.0, 4.0, 5.0, 6.0, 7.0]);
        assert_eq!(removed, 0);
    }

    #[test]
    fn ratio_is_mean_and_sd_of_pairwise_quotients() {
        let (r, sd) = ratio_of_samples(&[1.0, 2.0], &[2.0, 4.0]).unwrap();
        // quotients: 2, 4, 1, 2 -> mean 2.25, sd sqrt(((.25)^2+(1.75)^2+(1.25)^2+(.25)^2)/3)
        assert!(close(r, 2.25, 1e-12));
        let expected = ((0.0625 + 3.0625 + 1.5625 + 0.0625) / 3.0f64).sqrt();
        assert!(close(sd, expected, 1e-12));
    }
}
