//! Fixed random seeds in the counted child of `--measure counts`.
//!
//! Hash maps seed themselves per process (std's `RandomState`, ahash): under Callgrind two
//! processes of one build then counted some rows in two modes (simd-json's rows and
//! reader/serde_json up to 2% apart), and with `getrandom` answering a fixed pattern they
//! counted the same. So this binary defines `getrandom` itself, exported so the lookups of
//! std and the getrandom crate find it before libc's: in the counted child (running under
//! Valgrind with JSONCOST_COUNT_OPS set) it fills the buffer with a fixed byte; everywhere
//! else it is the system call, as libc's is.

use std::sync::atomic::{AtomicU8, Ordering};

/// 0: not asked yet; 1: the counted child; 2: not.
static COUNTED: AtomicU8 = AtomicU8::new(0);

fn counted_child() -> bool {
    match COUNTED.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            // std::env is not used: it may take a lock the caller holds (a seed asked for
            // while reading the environment).
            let name = c"JSONCOST_COUNT_OPS";
            // SAFETY: getenv with a NUL-terminated name; only the pointer's nullness is read.
            let set = unsafe { !libc::getenv(name.as_ptr()).is_null() };
            let yes = set && jsoncost_engine::counts::running_on_valgrind();
            COUNTED.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
            yes
        }
    }
}

/// getrandom(2), as glibc declares it.
///
/// # Safety
///
/// `buf` must be valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn getrandom(buf: *mut libc::c_void, len: libc::size_t, flags: libc::c_uint) -> libc::ssize_t {
    if counted_child() {
        // SAFETY: the caller's buffer, `len` bytes.
        unsafe { std::ptr::write_bytes(buf.cast::<u8>(), 0x5a, len) };
        return len as libc::ssize_t;
    }
    // SAFETY: the system call with the caller's arguments.
    unsafe { libc::syscall(libc::SYS_getrandom, buf, len, flags) as libc::ssize_t }
}

#[cfg(test)]
mod tests {
    #[test]
    fn natively_it_is_the_system_call() {
        let mut a = [0u8; 32];
        let mut b = [0u8; 32];
        // SAFETY: two 32-byte buffers.
        let (na, nb) = unsafe {
            (
                super::getrandom(a.as_mut_ptr().cast(), 32, 0),
                super::getrandom(b.as_mut_ptr().cast(), 32, 0),
            )
        };
        assert_eq!((na, nb), (32, 32));
        assert_ne!(a, b);
        assert_ne!(a, [0x5a; 32]);
    }
}
