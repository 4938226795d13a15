//! One keep-alive HTTP/1.1 connection of the load generator, and one request over it.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{
    AtomicBool,
    Ordering::{Acquire, Release},
};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use bytes::Bytes;
use futures::task::AtomicWaker;
use http::{HeaderValue, Request, header};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::outcome::Outcome;
use super::spec::{LoadError, invalid};
use super::target::Target;

/// What every request of a run sends.
#[derive(Clone)]
pub struct RequestTemplate {
    pub method: http::Method,
    pub body: Bytes,
    pub content_type: Option<HeaderValue>,
    pub host: HeaderValue,
    /// The request target in origin form, parsed once.
    pub uri: http::Uri,
}

impl RequestTemplate {
    pub fn build(&self) -> Request<Full<Bytes>> {
        let mut req = Request::new(Full::new(self.body.clone()));
        *req.method_mut() = self.method.clone();
        *req.uri_mut() = self.uri.clone();
        req.headers_mut().insert(header::HOST, self.host.clone());
        if let Some(ct) = &self.content_type {
            req.headers_mut().insert(header::CONTENT_TYPE, ct.clone());
        }
        req
    }
}

/// The request every connection of a run sends to `target`.
pub fn template(target: &Target, method: &http::Method, body: &Bytes, content_type: Option<&str>) -> Result<RequestTemplate, LoadError> {
    let header = |what: &str, v: &str| HeaderValue::from_str(v).map_err(|_| invalid(format!("{what} {v:?} is not a valid header value")));
    Ok(RequestTemplate {
        method: method.clone(),
        body: body.clone(),
        content_type: content_type.map(|ct| header("content type", ct)).transpose()?,
        host: header("host", &target.authority)?,
        uri: target.origin_form.clone(),
    })
}

/// One connection first: a target that refuses it is an environment failure, not a load result.
pub async fn first_connection(target: &Target, url: &str, timeout: Duration) -> Result<(), LoadError> {
    let sender = connect(target, timeout).await.map_err(|cause| LoadError::Unreachable {
        url: jsoncost_stores::redact(url),
        cause,
    })?;
    drop(sender);
    Ok(())
}

/// An HTTP/1.1 client connection's driver: it writes requests and reads responses when polled.
type Driver = http1::Connection<TokioIo<TcpStream>, Full<Bytes>>;

/// Opens a TCP connection and an HTTP/1.1 client on it; the caller polls the driver.
async fn open(target: &Target, timeout: Duration) -> std::io::Result<(SendRequest<Full<Bytes>>, Driver)> {
    let stream = tokio::time::timeout(timeout, TcpStream::connect((target.host.as_str(), target.port)))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, format!("connect timed out after {timeout:?}")))??;
    stream.set_nodelay(true)?;
    http1::handshake(TokioIo::new(stream)).await.map_err(std::io::Error::other)
}

/// Opens a TCP connection and an HTTP/1.1 client on it; the connection's driver runs as a task.
/// For single requests; the load loop drives its connections itself (see [`Connection`]).
pub async fn connect(target: &Target, timeout: Duration) -> std::io::Result<SendRequest<Full<Bytes>>> {
    let (sender, conn) = open(target, timeout).await?;
    tokio::spawn(async move {
        // Its errors surface on the request that was in flight; nothing more to report here.
        let _ = conn.await;
    });
    Ok(sender)
}

/// Which of a connection's two futures (its driver, and the exchange using it) has been woken
/// since it was last polled. Each is polled with a waker of its own that sets its flag and
/// wakes the worker's task, so the task polls only what was woken: a response wakes the driver
/// alone, a queued request the driver alone, a delivered response the exchange alone.
struct Wakeups {
    flags: [AtomicBool; 2],
    task: AtomicWaker,
}

const DRIVER: usize = 0;
const WORK: usize = 1;

struct FlagWaker {
    wakeups: Arc<Wakeups>,
    which: usize,
}

impl Wake for FlagWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakeups.flags[self.which].store(true, Release);
        self.wakeups.task.wake();
    }
}

/// One open connection: the sending half and its driver, polled by the worker's own task
/// (not a spawned task), so a response wakes one task instead of two, on one thread.
struct Live {
    sender: SendRequest<Full<Bytes>>,
    /// `None` once the driver has finished (peer closed, I/O or protocol error). Dropping it
    /// fails every request still queued on the sender, so none can wait forever.
    driver: Option<Pin<Box<Driver>>>,
    wakeups: Arc<Wakeups>,
    /// The wakers of the driver and of the exchange, made once per connection.
    wakers: [Waker; 2],
}

/// Rounds of polling within one wake-up before yielding to the runtime: each round polls what
/// was woken; a round that polls nothing ends the wake-up.
const ROUNDS: usize = 8;

impl Live {
    fn new(sender: SendRequest<Full<Bytes>>, driver: Driver) -> Self {
        let wakeups = Arc::new(Wakeups {
            // Both are polled first thing.
            flags: [AtomicBool::new(true), AtomicBool::new(true)],
            task: AtomicWaker::new(),
        });
        let waker = |which| {
            Waker::from(Arc::new(FlagWaker {
                wakeups: Arc::clone(&wakeups),
                which,
            }))
        };
        let wakers = [waker(DRIVER), waker(WORK)];
        Live {
            sender,
            driver: Some(Box::pin(driver)),
            wakeups,
            wakers,
        }
    }

    /// True if the connection can take no more requests.
    fn is_closed(&self) -> bool {
        self.driver.is_none() || self.sender.is_closed()
    }

    /// Runs `work` (which uses the sender) while driving the connection, until `work` ends.
    async fn drive<T>(&mut self, work: impl AsyncFnOnce(&mut SendRequest<Full<Bytes>>) -> T) -> T {
        let Live {
            sender,
            driver,
            wakeups,
            wakers,
        } = self;
        let mut work = pin!(work(sender));
        // A new exchange has not been polled yet.
        wakeups.flags[WORK].store(true, Release);
        std::future::poll_fn(|cx| {
            wakeups.task.register(cx.waker());
            for _ in 0..ROUNDS {
                let mut polled = false;
                if wakeups.flags[WORK].swap(false, Acquire) {
                    polled = true;
                    if let Poll::Ready(out) = work.as_mut().poll(&mut Context::from_waker(&wakers[WORK])) {
                        return Poll::Ready(out);
                    }
                }
                if wakeups.flags[DRIVER].swap(false, Acquire)
                    && let Some(d) = driver
                {
                    polled = true;
                    if d.as_mut().poll(&mut Context::from_waker(&wakers[DRIVER])).is_ready() {
                        // Dropping the driver fails what `work` waits for: let it see that.
                        *driver = None;
                        wakeups.flags[WORK].store(true, Release);
                    }
                }
                if !polled {
                    return Poll::Pending;
                }
            }
            // Still woken after ROUNDS rounds: come back after the runtime's other tasks.
            cx.waker().wake_by_ref();
            Poll::Pending
        })
        .await
    }
}

/// A connection slot of a worker: reconnects when the peer has closed the connection.
pub struct Connection<'a> {
    target: &'a Target,
    connect_timeout: Duration,
    live: Option<Live>,
}

impl<'a> Connection<'a> {
    pub fn new(target: &'a Target, connect_timeout: Duration) -> Self {
        Connection {
            target,
            connect_timeout,
            live: None,
        }
    }

    /// Opens a new connection in place of the current one.
    async fn reconnect(&mut self) -> Result<&mut Live, Outcome> {
        self.live = None;
        let (sender, driver) = open(self.target, self.connect_timeout).await.map_err(|_| Outcome::Connect)?;
        Ok(self.live.insert(Live::new(sender, driver)))
    }

    /// A connection ready for a request, reconnecting if needed. A peer that closed an idle
    /// keep-alive connection is not an error; failing to connect is.
    async fn ready(&mut self) -> Result<&mut Live, Outcome> {
        if let Some(live) = &mut self.live
            && !live.is_closed()
            && live.drive(async |s: &mut SendRequest<Full<Bytes>>| s.ready().await.is_ok()).await
        {
            return self.live.as_mut().ok_or(Outcome::Closed);
        }
        let live = self.reconnect().await?;
        match live.drive(async |s: &mut SendRequest<Full<Bytes>>| s.ready().await).await {
            Ok(()) => Ok(live),
            Err(_) => Err(Outcome::Closed),
        }
    }

    /// Sends one request and reads its whole response body. Latency runs from `intended` (the
    /// scheduled send time; equal to the actual send time in a closed model) to the last byte.
    /// The caller bounds it with the run's timeout and calls [`Connection::abandon`] if it fires.
    pub async fn exchange(&mut self, template: &RequestTemplate, intended: Instant) -> Outcome {
        let exchange = async {
            let live = self.ready().await?;
            live.drive(async |sender: &mut SendRequest<Full<Bytes>>| -> Result<Outcome, Outcome> {
                let sent = Instant::now();
                let response = sender.send_request(template.build()).await.map_err(|_| Outcome::Closed)?;
                let status = response.status().as_u16();
                let mut body = response.into_body();
                let mut bytes = 0u64;
                while let Some(frame) = body.frame().await {
                    let frame = frame.map_err(|_| Outcome::Closed)?;
                    bytes += frame.data_ref().map_or(0, |d| d.len() as u64);
                }
                let done = Instant::now();
                Ok(Outcome::Response {
                    status,
                    bytes,
                    latency: done - intended,
                    uncorrected: done - sent,
                })
            })
            .await
        };
        match exchange.await {
            Ok(outcome) => outcome,
            Err(failure) => {
                self.live = None;
                failure
            }
        }
    }

    /// Drops a connection left mid-exchange (timed out); the next request reconnects.
    pub fn abandon(&mut self) {
        self.live = None;
    }
}
