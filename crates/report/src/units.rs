//! Number formatting in BenchmarkDotNet's manner: one time unit per column, sizes in B/KB/MB
//! with 1024, counts with thousands separators, "-" for absent values.
//!
//! Thousands grouping is written by hand: the output is fixed to one style (comma groups, dot
//! decimals) whatever the locale, which is all a locale-aware crate would be used for here.

/// Shown where a value is absent.
pub const ABSENT: &str = "-";

/// A time unit for one column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl TimeUnit {
    /// The largest unit in which `ns` is still at least 1 (BenchmarkDotNet picks a column's unit
    /// from its smallest value, so no cell reads "0.000 ms").
    pub fn for_ns(ns: f64) -> TimeUnit {
        let v = ns.abs();
        if v >= 1e9 {
            TimeUnit::S
        } else if v >= 1e6 {
            TimeUnit::Ms
        } else if v >= 1e3 {
            TimeUnit::Us
        } else {
            TimeUnit::Ns
        }
    }

    /// The one unit of every time column of a table: that of its smallest mean, so the fastest
    /// row reads at least 1 and no two cells of a table are in different units. `None` when no
    /// row has a mean.
    pub fn for_table(means: impl IntoIterator<Item = f64>) -> Option<TimeUnit> {
        means
            .into_iter()
            .filter(|v| v.is_finite() && *v != 0.0)
            .map(f64::abs)
            .min_by(f64::total_cmp)
            .map(TimeUnit::for_ns)
    }

    /// Nanoseconds in one of this unit.
    pub fn ns_per_unit(self) -> f64 {
        match self {
            TimeUnit::Ns => 1.0,
            TimeUnit::Us => 1e3,
            TimeUnit::Ms => 1e6,
            TimeUnit::S => 1e9,
        }
    }

    /// The unit's symbol: `ns`, `µs`, `ms`, `s`.
    pub fn suffix(self) -> &'static str {
        match self {
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "µs",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
        }
    }
}

/// Unit and decimals shared by every cell of one time column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeColumn {
    /// The column's unit.
    pub unit: TimeUnit,
    /// Decimals of every cell.
    pub decimals: usize,
}

impl TimeColumn {
    /// Fits the column to its values: the unit of the smallest non-zero value, and enough
    /// decimals to show that value with four significant digits.
    pub fn fit(values: impl IntoIterator<Item = f64>) -> TimeColumn {
        let smallest = values
            .into_iter()
            .filter(|v| v.is_finite() && *v != 0.0)
            .map(f64::abs)
            .min_by(f64::total_cmp);
        match smallest {
            None => TimeColumn {
                unit: TimeUnit::Ns,
                decimals: 1,
            },
            Some(v) => {
                let unit = TimeUnit::for_ns(v);
                TimeColumn {
                    unit,
                    decimals: decimals_for(v / unit.ns_per_unit()),
                }
            }
        }
    }

    /// Fits the column's decimals to its values in a unit chosen for the whole table (one unit
    /// per table, as BenchmarkDotNet prints: see [`TimeUnit::for_table`]).
    pub fn fit_in(unit: TimeUnit, values: impl IntoIterator<Item = f64>) -> TimeColumn {
        let smallest = values
            .into_iter()
            .filter(|v| v.is_finite() && *v != 0.0)
            .map(f64::abs)
            .min_by(f64::total_cmp);
        TimeColumn {
            unit,
            decimals: smallest.map_or(1, |v| decimals_for(v / unit.ns_per_unit())),
        }
    }

    /// `ns` in the column's unit and decimals, without the unit (`-` when not finite).
    pub fn format(&self, ns: f64) -> String {
        if !ns.is_finite() {
            return ABSENT.to_string();
        }
        format!("{} {}", fixed(ns / self.unit.ns_per_unit(), self.decimals), self.unit.suffix())
    }
}

/// Four significant digits for a value between 1 and 1000 (more is noise, fewer hides change).
fn decimals_for(v: f64) -> usize {
    let v = v.abs();
    if v < 1.0 {
        // Below the table's unit (an Error smaller than the fastest mean's unit): three
        // significant digits, at most 6 decimals.
        (2 - v.log10().floor() as i64).clamp(3, 6) as usize
    } else if v < 10.0 {
        3
    } else if v < 100.0 {
        2
    } else if v < 1000.0 {
        1
    } else {
        0
    }
}

/// One time value on its own, in its own unit (sentences and compare rows).
pub fn time(ns: f64) -> String {
    TimeColumn::fit([ns]).format(ns)
}

/// Bytes as B, KB, MB or GB (1024 based); whole bytes without decimals.
pub fn bytes(b: f64) -> String {
    if !b.is_finite() {
        return ABSENT.to_string();
    }
    let sign = if b < 0.0 { "-" } else { "" };
    let v = b.abs();
    const K: f64 = 1024.0;
    let body = if v < K {
        if v.fract() == 0.0 {
            format!("{v:.0} B")
        } else {
            format!("{v:.1} B")
        }
    } else if v < K * K {
        format!("{:.2} KB", v / K)
    } else if v < K * K * K {
        format!("{:.2} MB", v / (K * K))
    } else {
        format!("{} GB", fixed(v / (K * K * K), 2))
    };
    format!("{sign}{body}")
}

/// A count: whole numbers with thousands separators, fractions with two decimals.
pub fn count(x: f64) -> String {
    if !x.is_finite() {
        return ABSENT.to_string();
    }
    if x.fract() == 0.0 { fixed(x, 0) } else { fixed(x, 2) }
}

/// A ratio with two decimals, as BenchmarkDotNet prints it.
pub fn ratio(r: f64) -> String {
    if !r.is_finite() {
        return ABSENT.to_string();
    }
    format!("{r:.2}")
}

/// A share (0.25 = 25%) with one decimal.
pub fn percent(share: f64) -> String {
    if !share.is_finite() {
        return ABSENT.to_string();
    }
    format!("{}%", fixed(share * 100.0, 1))
}

/// A rate such as req/s or MB/s: no decimals from 100 up, one below.
pub fn rate(x: f64) -> String {
    if !x.is_finite() {
        return ABSENT.to_string();
    }
    fixed(x, if x.abs() >= 100.0 { 0 } else { 1 })
}

/// `x` with `decimals` decimals and thousands separators; "-0.0" is printed as "0.0".
pub fn fixed(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return ABSENT.to_string();
    }
    let digits = format!("{:.*}", decimals, x.abs());
    let (int, frac) = digits.split_once('.').map_or((digits.as_str(), None), |(i, f)| (i, Some(f)));
    let mut out = String::with_capacity(digits.len() + int.len() / 3 + 1);
    if x < 0.0 && digits.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        out.push('-');
    }
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// A share of CPU cores, three significant digits with trailing zeros dropped: "0.7 of a
/// core", "0.0156 of a core", "1 core", "17.4 cores" (CPU time per second of wall time).
pub fn cores(n: f64) -> String {
    if !n.is_finite() {
        return ABSENT.to_string();
    }
    let v = n.abs();
    // Decimals for three significant digits, none from 100 up, at most 9 (a billionth of a core).
    let decimals = if v == 0.0 || v >= 100.0 {
        0
    } else {
        (2 - v.log10().floor() as i64).clamp(0, 9) as usize
    };
    let mut text = fixed(n, decimals);
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if v < 1.0 {
        format!("{text} of a core")
    } else if text == "1" {
        "1 core".to_string()
    } else {
        format!("{text} cores")
    }
}

/// Formats an optional value, "-" when absent.
pub fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| ABSENT.to_string(), f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_column_takes_the_unit_of_its_smallest_value() {
        let col = TimeColumn::fit([120.5, 7_000_000.0, 0.0]);
        assert_eq!(
            col,
            TimeColumn {
                unit: TimeUnit::Ns,
                decimals: 1
            }
        );
        assert_eq!(col.format(120.5), "120.5 ns");
        assert_eq!(col.format(7_000_000.0), "7,000,000.0 ns");
        let col = TimeColumn::fit([1_381_000.0, 968_000.0]);
        assert_eq!(col.unit, TimeUnit::Us);
        assert_eq!(col.format(1_381_000.0), "1,381.0 µs");
        assert_eq!(TimeColumn::fit([1.1]).format(1.1), "1.100 ns");
        assert_eq!(TimeColumn::fit([2.5e9]).format(2.5e9), "2.500 s");
        assert_eq!(TimeColumn::fit([45.0e6]).format(45.0e6), "45.00 ms");
        assert_eq!(TimeColumn::fit(Vec::new()).format(3.0), "3.0 ns");
    }

    #[test]
    fn a_table_has_one_time_unit_chosen_from_its_smallest_mean() {
        // The fastest mean is 1.84 µs: every time column of the table is in µs.
        let unit = TimeUnit::for_table([14_230.0, 1_840.0, 9_870.0]).unwrap();
        assert_eq!(unit, TimeUnit::Us);
        let error = TimeColumn::fit_in(unit, [210.0, 30.0, 140.0]);
        assert_eq!(error.format(210.0), "0.2100 µs");
        assert_eq!(error.format(30.0), "0.0300 µs");
        let mean = TimeColumn::fit_in(unit, [14_230.0, 1_840.0]);
        assert_eq!(mean.format(14_230.0), "14.230 µs");
        // A 1,982.9 µs mean and its 151,955.7 ns error read in one unit.
        let unit = TimeUnit::for_table([1_982_900.0]).unwrap();
        assert_eq!(TimeColumn::fit_in(unit, [1_982_900.0]).format(1_982_900.0), "1.983 ms");
        assert_eq!(TimeColumn::fit_in(unit, [151_955.7]).format(151_955.7), "0.152 ms");
        assert_eq!(TimeColumn::fit_in(TimeUnit::Us, [3.0]).format(3.0), "0.00300 µs");
        assert_eq!(TimeUnit::for_table(Vec::new()), None);
    }

    #[test]
    fn bytes_use_1024_and_drop_decimals_for_whole_bytes() {
        assert_eq!(bytes(0.0), "0 B");
        assert_eq!(bytes(40.0), "40 B");
        assert_eq!(bytes(7.5), "7.5 B");
        assert_eq!(bytes(1023.0), "1023 B");
        assert_eq!(bytes(1024.0), "1.00 KB");
        assert_eq!(bytes(42_188.8), "41.20 KB");
        assert_eq!(bytes(75_497_472.0), "72.00 MB");
        assert_eq!(bytes(-24.0), "-24 B");
        assert_eq!(bytes(3.0 * 1024.0 * 1024.0 * 1024.0), "3.00 GB");
    }

    #[test]
    fn counts_and_fixed_numbers_group_thousands() {
        assert_eq!(count(20_800.0), "20,800");
        assert_eq!(count(2.0), "2");
        assert_eq!(count(0.25), "0.25");
        assert_eq!(fixed(1_234_567.891, 2), "1,234,567.89");
        assert_eq!(fixed(-1234.0, 0), "-1,234");
        assert_eq!(fixed(-0.0001, 1), "0.0");
        assert_eq!(fixed(999.0, 0), "999");
        assert_eq!(rate(68_123.4), "68,123");
        assert_eq!(rate(31.25), "31.2");
        assert_eq!(percent(0.2345), "23.4%");
        assert_eq!(ratio(0.754), "0.75");
        assert_eq!(count(f64::NAN), "-");
        assert_eq!(opt(None, bytes), "-");
    }

    #[test]
    fn cores_read_as_a_share_of_one_core() {
        assert_eq!(cores(0.7), "0.7 of a core");
        assert_eq!(cores(0.003_78), "0.00378 of a core");
        assert_eq!(cores(0.015_64), "0.0156 of a core");
        assert_eq!(cores(1.0), "1 core");
        assert_eq!(cores(17.42), "17.4 cores");
        assert_eq!(cores(1.255), "1.25 cores");
        assert_eq!(cores(2_480.4), "2,480 cores");
        assert_eq!(cores(0.0), "0 of a core");
    }

    #[test]
    fn single_times_pick_their_own_unit() {
        assert_eq!(time(32.5), "32.50 ns");
        assert_eq!(time(160e6), "160.0 ms");
        assert_eq!(time(-80_000.0), "-80.00 µs");
    }
}
