//! One keep-alive HTTP/1.1 connection of the load generator, and one request over it.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Request, header};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::histogram::Outcome;
use super::target::Target;

/// What every request of a run sends.
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

/// Opens a TCP connection and an HTTP/1.1 client on it; the connection's driver runs as a task.
pub async fn connect(target: &Target, timeout: Duration) -> std::io::Result<SendRequest<Full<Bytes>>> {
    let stream = tokio::time::timeout(timeout, TcpStream::connect((target.host.as_str(), target.port)))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, format!("connect timed out after {timeout:?}")))??;
    stream.set_nodelay(true)?;
    let (sender, conn) = http1::handshake(TokioIo::new(stream)).await.map_err(std::io::Error::other)?;
    tokio::spawn(async move {
        // Its errors surface on the request that was in flight; nothing more to report here.
        let _ = conn.await;
    });
    Ok(sender)
}

/// A connection slot of a worker: reconnects when the peer has closed the connection.
pub struct Connection<'a> {
    target: &'a Target,
    connect_timeout: Duration,
    sender: Option<SendRequest<Full<Bytes>>>,
}

impl<'a> Connection<'a> {
    pub fn new(target: &'a Target, connect_timeout: Duration) -> Self {
        Connection {
            target,
            connect_timeout,
            sender: None,
        }
    }

    /// A ready sender, reconnecting if needed. A peer that closed an idle keep-alive connection
    /// is not an error; failing to connect is.
    async fn ready(&mut self) -> Result<&mut SendRequest<Full<Bytes>>, Outcome> {
        if let Some(s) = &mut self.sender
            && s.ready().await.is_err()
        {
            self.sender = None;
        }
        if self.sender.is_none() {
            let s = connect(self.target, self.connect_timeout).await.map_err(|_| Outcome::Connect)?;
            self.sender = Some(s);
        }
        let s = self.sender.as_mut().ok_or(Outcome::Connect)?;
        s.ready().await.map_err(|_| Outcome::Closed)?;
        Ok(s)
    }

    /// Sends one request and reads its whole response body. Latency runs from `intended` (the
    /// scheduled send time; equal to the actual send time in a closed model) to the last byte.
    /// The caller bounds it with the run's timeout and calls [`Connection::abandon`] if it fires.
    pub async fn exchange(&mut self, template: &RequestTemplate, intended: Instant) -> Outcome {
        let exchange = async {
            let sender = self.ready().await?;
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
        };
        match exchange.await {
            Ok(outcome) => outcome,
            Err(failure) => {
                self.sender = None;
                failure
            }
        }
    }

    /// Drops a connection left mid-exchange (timed out); the next request reconnects.
    pub fn abandon(&mut self) {
        self.sender = None;
    }
}
