//! Running statistics, so a stream of readings can be consumed without keeping it.

use jsoncost_shapes::Reading;

/// Count, minimum, maximum and mean of a series, in O(1) memory. The sum is accumulated in
/// input order, so two runs over the same series compare equal bit for bit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunningStats {
    count: u64,
    min: f64,
    max: f64,
    sum: f64,
}

impl Default for RunningStats {
    fn default() -> Self {
        RunningStats {
            count: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            sum: 0.0,
        }
    }
}

impl RunningStats {
    /// Adds one value.
    pub fn push(&mut self, x: f64) {
        self.count += 1;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
        self.sum += x;
    }

    /// How many values were added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The smallest value; `None` for an empty series.
    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    /// The largest value; `None` for an empty series.
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// The mean; `None` for an empty series.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

/// What the `incremental-aggregate` strategy keeps of a telemetry stream.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TelemetryAggregate {
    /// The readings' temperatures.
    pub temperature: RunningStats,
    /// The readings' humidities.
    pub humidity: RunningStats,
}

impl TelemetryAggregate {
    /// Adds one reading.
    pub fn push(&mut self, r: &Reading) {
        self.temperature.push(r.temperature);
        self.humidity.push(r.humidity);
    }

    /// Readings seen.
    pub fn count(&self) -> u64 {
        self.temperature.count()
    }

    /// The aggregate of readings already in memory (to check a buffered run against a streamed one).
    pub fn of(readings: &[Reading]) -> Self {
        readings.iter().collect()
    }
}

impl<'a> FromIterator<&'a Reading> for TelemetryAggregate {
    fn from_iter<I: IntoIterator<Item = &'a Reading>>(iter: I) -> Self {
        let mut a = TelemetryAggregate::default();
        iter.into_iter().for_each(|r| a.push(r));
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_stats_are_exact_for_a_small_series() {
        let mut s = RunningStats::default();
        assert_eq!((s.min(), s.max(), s.mean()), (None, None, None));
        for x in [2.5, -1.0, 4.0] {
            s.push(x);
        }
        assert_eq!((s.count(), s.min(), s.max(), s.mean()), (3, Some(-1.0), Some(4.0), Some(5.5 / 3.0)));
    }

    #[test]
    fn aggregate_of_generated_readings_matches_a_direct_computation() {
        let t = jsoncost_shapes::Generator::new(7).telemetry(50);
        let a = TelemetryAggregate::of(&t.readings);
        let temps: Vec<f64> = t.readings.iter().map(|r| r.temperature).collect();
        assert_eq!(a.count(), 50);
        assert_eq!(a.temperature.min(), temps.iter().copied().reduce(f64::min));
        assert_eq!(a.temperature.max(), temps.iter().copied().reduce(f64::max));
        assert_eq!(a.temperature.mean(), Some(temps.iter().sum::<f64>() / 50.0));
    }
}
