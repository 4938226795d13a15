//! A connection's writes given up once they make no progress for a while: a client that sends
//! requests (pipelined, say) and never reads its responses fills the socket's buffers, and then
//! each connection would hold its pending response (up to a whole list body, about 1 MB, plus
//! hyper's write buffer) and its connection slot for as long as the client stays. With this,
//! the write fails with `TimedOut` after [`WriteTimeout`]'s duration without a byte accepted by
//! the kernel, hyper drops the connection, and its memory and slot are freed.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// `inner` whose writes fail once one has waited `timeout` with no byte written.
pub(super) struct WriteTimeout<S> {
    inner: S,
    timeout: Duration,
    /// Armed when a write first has to wait; disarmed by any progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteTimeout<S> {
    pub(super) fn new(inner: S, timeout: Duration) -> Self {
        WriteTimeout {
            inner,
            timeout,
            stalled: None,
        }
    }

    /// What a write or flush that returned `poll` means: bytes written disarm the timer (a
    /// flush that is done says nothing of the client: hyper flushes on every wake-up, so it
    /// must not disarm it); waiting arms it (its waker is registered too, so the task is polled
    /// again when it fires), and past it the write fails.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>, progress: impl Fn(&T) -> bool) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(Ok(done)) => {
                if progress(&done) {
                    self.stalled = None;
                }
                Poll::Ready(Ok(done))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                let timeout = self.timeout;
                let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                ready!(timer.as_mut().poll(cx));
                Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("the client read nothing for {timeout:?}"),
                )))
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, poll, |n| *n > 0)
    }

    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, poll, |n| *n > 0)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, poll, |()| false)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
