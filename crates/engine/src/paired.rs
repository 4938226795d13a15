//! Paired statistics: quantities computed round by round from an interleaved schedule (or from
//! alternating runs of two builds), so drift that lands on a round lands on both sides of the
//! pair and cancels.
//!
//! - [`log_ratio`]: the ratio `row / baseline` as the (20%-trimmed) geometric mean of the
//!   per-round ratios, with Yuen's paired interval computed on the log ratios and mapped back
//!   (a ratio is multiplicative: its log is symmetric, the ratio's interval is not).
//! - [`difference`]: the trimmed mean per-round difference `b − a` with Yuen's paired interval
//!   (the store's JSON work above the floor).
//! - [`signed_rank`]: Wilcoxon's signed-rank test of per-round differences (exact for up to
//!   [`EXACT_MAX`] pairs, normal approximation beyond), a check that needs no normality.
//!
//! Before any of these, pairs whose paired quantity lies beyond Tukey's far-out fences
//! (Q1 − 3·IQR, Q3 + 3·IQR) are dropped: a hiccup of the machine during one side's iteration
//! is not a difference between the sides. Both tails are trimmed alike, so the estimate is not
//! biased by it; the count kept is in [`Interval::n`].
//!
//! Written here rather than taken from a crate: statrs (already used for Student's t) has no
//! signed-rank test, and the crates that do bring a dataframe library along.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use crate::stats::{percentile_sorted, t_quantile_two_sided};

/// Confidence level of every paired interval (ratio, difference, the `ab` decision).
pub const PAIRED_CONFIDENCE: f64 = 0.99;

/// Pairs up to which the signed-rank p is computed exactly.
pub const EXACT_MAX: usize = 50;

/// An estimate with its confidence interval, from `n` pairs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The point estimate (a ratio, or a difference).
    pub estimate: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
    /// Pairs the interval is computed from (after dropping far-out pairs).
    pub n: usize,
}

impl Interval {
    /// The interval holds `x`: no difference from `x` can be claimed.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// Half the width relative to the estimate (the stop rule's measure for a ratio).
    pub fn relative_half_width(&self) -> f64 {
        if self.estimate == 0.0 {
            0.0
        } else {
            (self.high - self.low) / 2.0 / self.estimate.abs()
        }
    }
}

/// Drops values beyond Tukey's far-out fences (k = 3, both tails); fewer than 4 values are kept
/// as they are. Returns the kept values in order.
pub fn drop_far_out(values: &[f64]) -> Vec<f64> {
    let keep = far_out_mask(values);
    values.iter().zip(keep).filter(|(_, k)| *k).map(|(x, _)| *x).collect()
}

/// Which of `values` lie within Tukey's far-out fences (all of them when fewer than 4).
fn far_out_mask(values: &[f64]) -> Vec<bool> {
    if values.len() < 4 {
        return vec![true; values.len()];
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let q1 = percentile_sorted(&sorted, 0.25);
    let q3 = percentile_sorted(&sorted, 0.75);
    let (lo, hi) = (q1 - 3.0 * (q3 - q1), q3 + 3.0 * (q3 - q1));
    values.iter().map(|&x| lo <= x && x <= hi).collect()
}

/// The pairs `(a[i], b[i])` whose difference is not far out; `None` unless the rounds pair up.
fn kept_pairs(a: &[f64], b: &[f64]) -> Option<Vec<(f64, f64)>> {
    if a.len() != b.len() || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let keep = far_out_mask(&d);
    Some(a.iter().zip(b).zip(keep).filter(|(_, k)| *k).map(|((x, y), _)| (*x, *y)).collect())
}

/// Share of the values trimmed from each tail before averaging: Yuen's 20%.
pub const TRIM: f64 = 0.2;

/// Fewer values than this are not trimmed: at 5 values, trimming one from each tail leaves
/// t with 2 degrees of freedom (9.9 at 99% against the plain mean's 4.6), so small tables
/// (`http`'s 5 rounds, `ab`'s runs) would lose more than trimming gains them.
pub const MIN_TO_TRIM: usize = 10;

/// The 20%-trimmed mean of `values` with Yuen's interval: the standard error from the
/// winsorized variance, Student's t with `h − 1` degrees of freedom (`h` values kept).
/// Per-round timings on a shared machine are heavy-tailed (a slowdown lands on one side of a
/// few pairs), and a plain mean follows those tails. Under [`MIN_TO_TRIM`] values nothing is
/// trimmed: the plain mean with its t interval. `None` for fewer than 2 values.
fn mean_interval(values: &[f64], confidence: f64) -> Option<Interval> {
    let n = values.len();
    if n < 2 || values.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let g = if n < MIN_TO_TRIM { 0 } else { (TRIM * n as f64).floor() as usize };
    let h = n - 2 * g;
    let mean = sorted[g..n - g].iter().sum::<f64>() / h as f64;
    let (lo, hi) = (sorted[g], sorted[n - 1 - g]);
    let winsorized: Vec<f64> = sorted.iter().map(|x| x.clamp(lo, hi)).collect();
    let w_mean = winsorized.iter().sum::<f64>() / n as f64;
    let squares: f64 = winsorized.iter().map(|x| (x - w_mean).powi(2)).sum();
    let se = (squares / (h * (h - 1)) as f64).sqrt();
    let half = t_quantile_two_sided(confidence, (h - 1) as f64) * se;
    Some(Interval {
        estimate: mean,
        low: mean - half,
        high: mean + half,
        n,
    })
}

/// Per-round paired difference `b[i] − a[i]`: its trimmed mean and Yuen's interval. `None`
/// unless both have the same number (≥ 2) of rounds.
pub fn difference(a: &[f64], b: &[f64], confidence: f64) -> Option<Interval> {
    let d: Vec<f64> = kept_pairs(a, b)?.into_iter().map(|(x, y)| y - x).collect();
    mean_interval(&d, confidence)
}

/// The share of `b` above `a` over the pairs [`difference`] keeps: `Σ(b − a) / Σb`, so it is
/// the mean difference over the mean `b` of the same rounds (never above 1 for positive times).
pub fn share_above(a: &[f64], b: &[f64]) -> Option<f64> {
    let pairs = kept_pairs(a, b)?;
    let total: f64 = pairs.iter().map(|(_, y)| y).sum();
    (pairs.len() >= 2 && total > 0.0).then(|| pairs.iter().map(|(x, y)| y - x).sum::<f64>() / total)
}

/// The per-round log ratios `ln(row[i] / base[i])`, far-out pairs dropped; `None` unless the
/// rounds pair up and every value is positive.
pub fn log_ratios(base: &[f64], row: &[f64]) -> Option<Vec<f64>> {
    if base.len() != row.len() || base.is_empty() || base.iter().chain(row).any(|&x| !(x > 0.0 && x.is_finite())) {
        return None;
    }
    let logs: Vec<f64> = base.iter().zip(row).map(|(b, r)| (r / b).ln()).collect();
    Some(drop_far_out(&logs))
}

/// Ratio `row / base` from paired rounds: the trimmed geometric mean of the per-round ratios,
/// and Yuen's paired interval of the trimmed mean log ratio mapped back through `exp`.
pub fn log_ratio(base: &[f64], row: &[f64], confidence: f64) -> Option<Interval> {
    let i = mean_interval(&log_ratios(base, row)?, confidence)?;
    Some(Interval {
        estimate: i.estimate.exp(),
        low: i.low.exp(),
        high: i.high.exp(),
        n: i.n,
    })
}

/// Sample standard deviation of the per-round ratios (the RatioSD column of a paired table).
pub fn ratio_sd(base: &[f64], row: &[f64]) -> Option<f64> {
    let ratios: Vec<f64> = log_ratios(base, row)?.into_iter().map(f64::exp).collect();
    let n = ratios.len();
    if n < 2 {
        return None;
    }
    let mean = ratios.iter().sum::<f64>() / n as f64;
    Some((ratios.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt())
}

/// Wilcoxon's signed-rank test of paired differences.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignedRank {
    /// Non-zero differences ranked (zeros are dropped, as Wilcoxon did).
    pub n: usize,
    /// Sum of the ranks of the positive differences (ties get their average rank).
    pub w_plus: f64,
    /// Two-sided p-value: exact (the permutation distribution of the ranks, ties included) for
    /// `n <= EXACT_MAX`, else the normal approximation with the tie correction.
    pub p: f64,
}

/// The signed-rank test of `d`; `None` when no difference is non-zero.
pub fn signed_rank(d: &[f64]) -> Option<SignedRank> {
    let mut nz: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0 && x.is_finite()).collect();
    let n = nz.len();
    if n == 0 {
        return None;
    }
    nz.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    // Doubled ranks, so average ranks of ties stay integers for the exact distribution.
    let mut ranks2 = vec![0usize; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nz[j + 1].abs() == nz[i].abs() {
            j += 1;
        }
        // Ranks i+1..=j+1 averaged, doubled: (i + 1 + j + 1).
        for r in &mut ranks2[i..=j] {
            *r = i + j + 2;
        }
        i = j + 1;
    }
    let w2_plus: usize = nz.iter().zip(&ranks2).filter(|(x, _)| **x > 0.0).map(|(_, r)| r).sum();
    let total2: usize = ranks2.iter().sum();
    let p = if n <= EXACT_MAX {
        // counts[s]: sign assignments whose doubled positive rank sum is s (each of 2^n equally
        // likely under no difference).
        let mut counts = vec![0f64; total2 + 1];
        counts[0] = 1.0;
        for &r in &ranks2 {
            for s in (r..=total2).rev() {
                counts[s] += counts[s - r];
            }
        }
        let all: f64 = counts.iter().sum();
        let lower: f64 = counts[..=w2_plus].iter().sum::<f64>() / all;
        let upper: f64 = counts[w2_plus..].iter().sum::<f64>() / all;
        (2.0 * lower.min(upper)).min(1.0)
    } else {
        let nf = n as f64;
        let mean = nf * (nf + 1.0) / 4.0;
        // Tie correction: subtract Σ(t³ − t)/48 over groups of tied ranks.
        let mut tie = 0.0;
        let mut k = 0;
        while k < n {
            let t = ranks2[k..].iter().take_while(|&&r| r == ranks2[k]).count() as f64;
            tie += t * t * t - t;
            k += t as usize;
        }
        let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie / 48.0;
        let z = (w2_plus as f64 / 2.0 - mean).abs() / var.sqrt();
        let normal = Normal::new(0.0, 1.0).expect("standard normal");
        (2.0 * (1.0 - normal.cdf(z))).min(1.0)
    };
    Some(SignedRank {
        n,
        w_plus: w2_plus as f64 / 2.0,
        p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn paired_difference_and_its_interval_match_hand_computation() {
        // Differences 2.5, 3.5, 3, 3.5, 2.5 (too few to trim): mean 3, sd sqrt(1/4) = 0.5;
        // t(0.995, 4) = 4.6041.
        let a = [10.0, 20.0, 30.0, 40.0, 50.0];
        let b = [12.5, 23.5, 33.0, 43.5, 52.5];
        let i = difference(&a, &b, 0.99).unwrap();
        assert_eq!((i.estimate, i.n), (3.0, 5));
        let half = 4.604_095 * 0.5 / 5f64.sqrt();
        assert!(close(i.low, 3.0 - half, 1e-5) && close(i.high, 3.0 + half, 1e-5));
        assert!(!i.contains(0.0));
        // Share of b above a: 15 / 165.
        assert_eq!(share_above(&a, &b), Some(15.0 / 165.0));
        // Rounds that do not pair up give nothing.
        assert_eq!(difference(&a, &b[..4], 0.99), None);
    }

    #[test]
    fn the_trimmed_mean_sets_the_tails_aside_and_under_ten_values_is_the_plain_mean() {
        // 1..=9 and 100: two trimmed from each tail (20% of 10), so the mean is that of 3..=8,
        // 5.5, not 14.5. Winsorized 3,3,3,4,5,6,7,8,8,8: mean 5.5, squares
        // 3·6.25 + 2.25 + 0.25 + 0.25 + 2.25 + 3·6.25 = 42.5; se = sqrt(42.5 / (6·5));
        // t(0.995, 5) = 4.0321.
        let mut values: Vec<f64> = (1..=9).map(f64::from).collect();
        values.insert(4, 100.0);
        let i = mean_interval(&values, 0.99).unwrap();
        let half = 4.032_143 * (42.5f64 / 30.0).sqrt();
        assert_eq!((i.estimate, i.n), (5.5, 10));
        assert!(close(i.low, 5.5 - half, 1e-5) && close(i.high, 5.5 + half, 1e-5));
        // The same interval for 1..=10: the tails are set aside whatever they hold.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(mean_interval(&ten, 0.99), Some(i));
        // Nine values: nothing trimmed; 100 moves the mean to (1 + ... + 8 + 100) / 9 = 15.1.
        let mut nine: Vec<f64> = (1..=8).map(f64::from).collect();
        nine.push(100.0);
        assert!(close(mean_interval(&nine, 0.99).unwrap().estimate, 136.0 / 9.0, 1e-12));
    }

    #[test]
    fn a_difference_whose_interval_holds_zero_is_within_noise() {
        let i = difference(&[10.0, 10.0, 10.0, 10.0], &[11.0, 9.0, 10.5, 9.5], 0.99).unwrap();
        assert_eq!(i.estimate, 0.0);
        assert!(i.contains(0.0));
    }

    #[test]
    fn log_ratio_interval_matches_hand_computation() {
        // Ratios 2, 2, 4, 1: logs ln2, ln2, 2 ln2, 0 -> mean ln2, sd ln2 * sqrt(2/3);
        // t(0.995, 3) = 5.8409.
        let base = [1.0, 2.0, 1.0, 3.0];
        let row = [2.0, 4.0, 4.0, 3.0];
        let i = log_ratio(&base, &row, 0.99).unwrap();
        let ln2 = 2f64.ln();
        let half = 5.840_909 * ln2 * (2.0f64 / 3.0).sqrt() / 2.0;
        assert!(close(i.estimate, 2.0, 1e-12));
        assert!(close(i.low, (ln2 - half).exp(), 1e-5));
        assert!(close(i.high, (ln2 + half).exp(), 1e-5));
        assert_eq!(i.n, 4);
        // RatioSD: sd of 2, 2, 4, 1 = sqrt(((−.25)²·2 + 1.75² + 1.25²)/3).
        let sd = ((0.0625 * 2.0 + 3.0625 + 1.5625) / 3.0f64).sqrt();
        assert!(close(ratio_sd(&base, &row).unwrap(), sd, 1e-12));
        // Non-positive samples or unpaired rounds give nothing.
        assert_eq!(log_ratio(&[0.0, 1.0], &[1.0, 1.0], 0.99), None);
        assert_eq!(log_ratio(&[1.0, 1.0], &[1.0], 0.99), None);
    }

    #[test]
    fn a_far_out_pair_is_dropped_from_both_tails_alike() {
        // Quartiles of 1..=8 and 100: Q1 3, Q3 7, far-out fences −9 and 19.
        assert_eq!(
            drop_far_out(&[5.0, 1.0, 2.0, 3.0, 100.0, 4.0, 6.0, 7.0, 8.0]),
            [5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0]
        );
        assert_eq!(
            drop_far_out(&[5.0, 1.0, 2.0, 3.0, -100.0, 4.0, 6.0, 7.0, 8.0]),
            [5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0]
        );
    }

    #[test]
    fn signed_rank_statistic_and_exact_p_on_a_small_case() {
        // |d| ranks: 0.5→1, 1.5→2, 2→3, 3→4, 4→5; W+ = 2+3+4+5 = 14 (the zero is dropped).
        // Of the 32 sign patterns, sums ≥ 14 are 15 and 14: P = 2/32, two-sided p = 0.125.
        let r = signed_rank(&[1.5, -0.5, 0.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!((r.n, r.w_plus), (5, 14.0));
        assert!(close(r.p, 0.125, 1e-12));
        // All positive: W+ = 15, p = 2/32.
        let r = signed_rank(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(r.w_plus, 15.0);
        assert!(close(r.p, 0.0625, 1e-12));
        // Ties share their average rank: |d| = 1, 1, 2 -> ranks 1.5, 1.5, 3; W+ = 1.5 + 3.
        // Doubled rank sums over the 8 sign patterns: 0, 3, 3, 6, 6, 9, 9, 12; W+ doubled is 9:
        // P(≥ 9) = 3/8, P(≤ 9) = 7/8 -> p = 2 · 3/8 = 0.75.
        let r = signed_rank(&[1.0, -1.0, 2.0]).unwrap();
        assert_eq!((r.n, r.w_plus, r.p), (3, 4.5, 0.75));
        assert_eq!(signed_rank(&[0.0, 0.0]), None);
    }

    #[test]
    fn signed_rank_normal_approximation_beyond_the_exact_range() {
        // 60 positive differences, no ties: W+ = 1830, mean 915, var 60·61·121/24 = 18452.5.
        let d: Vec<f64> = (1..=60).map(f64::from).collect();
        let r = signed_rank(&d).unwrap();
        assert_eq!(r.w_plus, 1830.0);
        let z: f64 = 915.0 / 18452.5f64.sqrt();
        let expected = 2.0 * (1.0 - Normal::new(0.0, 1.0).unwrap().cdf(z));
        assert!(close(r.p, expected, 1e-15));
        assert!(r.p < 1e-10);
    }
}
