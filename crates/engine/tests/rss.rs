//! The RSS window: what earlier work freed is not charged to the next row (Linux with glibc;
//! elsewhere the window does not open and the test says so).

use jsoncost_engine::rss::PeakWindow;

const MIB: usize = 1 << 20;

/// Touches every page of a `len`-byte allocation, so it is resident.
fn touched(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    for i in (0..len).step_by(4096) {
        v[i] = 1;
    }
    std::hint::black_box(v)
}

#[test]
fn a_row_after_a_large_freed_one_is_charged_only_its_own_growth() {
    // Freeing a 16 MiB mapped block raises glibc's mmap threshold to 16 MiB, so the 1 MiB
    // blocks after it come from the heap; freed below a block still held, they stay resident
    // (free() only trims the heap's top): what made a later row's peak carry an earlier one's.
    drop(touched(16 * MIB));
    let blocks: Vec<Vec<u8>> = (0..96).map(|_| touched(MIB)).collect();
    let held = touched(4096);
    drop(blocks);
    let Some(window) = PeakWindow::open() else {
        eprintln!("skipped: /proc cannot report or reset the peak RSS here");
        return;
    };
    let own = touched(8 * MIB);
    let peak = window.close().expect("the peak is readable once the window opened");
    drop(own);
    drop(held);
    assert!(peak.growth_bytes >= (8 * MIB) as u64, "{peak:?}");
    // The 96 MiB freed before are not in it (slack for the allocator's own pages).
    assert!(peak.growth_bytes < (24 * MIB) as u64, "{peak:?}");
    assert!(peak.peak_bytes >= peak.growth_bytes, "{peak:?}");
}
