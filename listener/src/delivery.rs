//! Knowing whether an answer was handed to the transport (docs/billing.md
//! "When a call counts as delivered"): a handler that must know it (the
//! gateway, which has the core commit a charged call only then) puts a
//! [`WhenWritten`] in its response's extensions, and the listener calls it
//! once with `true` when the whole answer was written to the socket, or
//! with `false` when it could not be (the client reset the connection, a
//! write failed, the connection closed first).
//!
//! - HTTP/1.1: the answer's last frame is taken from its body, then hyper
//!   writes its buffer to the socket and flushes (`Watched`); the first
//!   flush that succeeds after the last frame was taken means every byte of
//!   the answer went to the kernel. A write error, or a connection dropped
//!   before that flush, means it did not.
//! - HTTP/2: the frames go through the connection's own flow control; the
//!   answer counts as written when HTTP/2 takes its last frame.
//!
//! A request served by this listener carries [`Watching`] in its
//! extensions, so a handler knows a [`WhenWritten`] will be called.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Called once with whether the answer was written whole to the transport;
/// put in a response's extensions. Cheap to clone (extensions must be
/// `Clone`); only the first call runs. The listener calls it with `false`
/// when the body is dropped before its end.
#[derive(Clone)]
pub struct WhenWritten(Arc<Mutex<Option<Then>>>);

/// What a [`WhenWritten`] runs.
type Then = Box<dyn FnOnce(bool) + Send>;

impl WhenWritten {
    /// Calls `then(written)` once the answer's fate is known.
    pub fn new(then: impl FnOnce(bool) + Send + 'static) -> WhenWritten {
        WhenWritten(Arc::new(Mutex::new(Some(Box::new(then)))))
    }

    fn fire(&self, written: bool) {
        let then = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(then) = then {
            then(written);
        }
    }
}

impl std::fmt::Debug for WhenWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WhenWritten")
    }
}

/// In the extensions of every request this listener serves: a
/// [`WhenWritten`] put in the response will be called.
#[derive(Debug, Clone, Copy)]
pub struct Watching;

/// The answers of one HTTP/1.1 connection whose last frame was taken and
/// that wait for the next successful flush.
#[derive(Clone, Default)]
pub(crate) struct Flushes(Arc<Mutex<FlushState>>);

#[derive(Default)]
struct FlushState {
    waiting: Vec<WhenWritten>,
    /// The connection failed or closed: nothing more is written.
    closed: bool,
}

impl Flushes {
    fn wait(&self, written: WhenWritten) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if state.closed {
            drop(state);
            written.fire(false);
        } else {
            state.waiting.push(written);
        }
    }

    fn settle(&self, written: bool, close: bool) {
        let waiting = {
            let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
            state.closed |= close;
            std::mem::take(&mut state.waiting)
        };
        for answer in waiting {
            answer.fire(written);
        }
    }
}

/// The socket of one connection, telling [`Flushes`] when what hyper wrote
/// reached the kernel.
pub(crate) struct Watched<IO> {
    io: IO,
    flushes: Flushes,
}

impl<IO> Watched<IO> {
    pub(crate) fn new(io: IO, flushes: Flushes) -> Watched<IO> {
        Watched { io, flushes }
    }

    fn failed<T>(&self, result: Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
        if let Poll::Ready(Err(_)) = &result {
            self.flushes.settle(false, true);
        }
        result
    }
}

impl<IO> Drop for Watched<IO> {
    fn drop(&mut self) {
        self.flushes.settle(false, true);
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Watched<IO> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Watched<IO> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.io).poll_write(cx, buf);
        self.failed(result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.failed(result)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    /// hyper flushes its socket only once its own buffer is written
    /// (`hyper::proto::h1::io::Buffered::poll_flush`), so a flush that
    /// succeeds means every answer taken before it is in the kernel.
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let result = Pin::new(&mut self.io).poll_flush(cx);
        match &result {
            Poll::Ready(Ok(())) => self.flushes.settle(true, false),
            Poll::Ready(Err(_)) => self.flushes.settle(false, true),
            Poll::Pending => {}
        }
        result
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// How a response's [`WhenWritten`] learns its fate.
pub(crate) enum Transport {
    /// HTTP/1.1: at the next successful flush of the connection.
    Http1(Flushes),
    /// HTTP/2: when HTTP/2 takes the last frame.
    Http2,
}

/// A response body that keeps `held` alive until it has been sent (or the
/// connection dropped it: the listener counts requests in flight this
/// way) and reports, through its [`WhenWritten`] if it has one, whether it
/// was written whole; see the module docs.
pub(crate) struct Delivering<B: Body, H> {
    inner: B,
    written: Option<WhenWritten>,
    transport: Transport,
    _held: H,
}

impl<B: Body, H> Delivering<B, H> {
    pub(crate) fn new(inner: B, written: Option<WhenWritten>, transport: Transport, held: H) -> Delivering<B, H> {
        Delivering { inner, written, transport, _held: held }
    }

    /// The last frame was taken.
    fn taken(&mut self) {
        let Some(written) = self.written.take() else { return };
        match &self.transport {
            Transport::Http1(flushes) => flushes.wait(written),
            Transport::Http2 => written.fire(true),
        }
    }

    fn lost(&mut self) {
        if let Some(written) = self.written.take() {
            written.fire(false);
        }
    }
}

impl<B: Body, H> Drop for Delivering<B, H> {
    /// A body that was empty from the start is never polled: it counts as
    /// taken when the server drops it. Any other body dropped before its end
    /// was not written whole.
    fn drop(&mut self) {
        if self.inner.is_end_stream() {
            self.taken();
        } else {
            self.lost();
        }
    }
}

impl<B: Body + Unpin, H: Unpin> Body for Delivering<B, H> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let frame = std::task::ready!(Pin::new(&mut self.inner).poll_frame(cx));
        match &frame {
            // The server stops polling a body that says it has ended.
            Some(Ok(_)) if self.inner.is_end_stream() => self.taken(),
            Some(Ok(_)) => {}
            None => self.taken(),
            Some(Err(_)) => self.lost(),
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    fn recorder() -> (WhenWritten, Arc<AtomicU8>) {
        let seen = Arc::new(AtomicU8::new(0));
        let record = seen.clone();
        (WhenWritten::new(move |written| record.store(if written { 1 } else { 2 }, Ordering::SeqCst)), seen)
    }

    #[test]
    fn an_answer_counts_as_written_at_the_next_flush_only() {
        let flushes = Flushes::default();
        let (written, seen) = recorder();
        flushes.wait(written);
        assert_eq!(seen.load(Ordering::SeqCst), 0);
        flushes.settle(true, false);
        assert_eq!(seen.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_closed_connection_writes_nothing_more() {
        let flushes = Flushes::default();
        let (waiting, seen_waiting) = recorder();
        flushes.wait(waiting);
        flushes.settle(false, true);
        let (late, seen_late) = recorder();
        flushes.wait(late);
        flushes.settle(true, false);
        assert_eq!(seen_waiting.load(Ordering::SeqCst), 2);
        assert_eq!(seen_late.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_body_dropped_before_its_end_was_not_written_and_says_so_once() {
        let (written, seen) = recorder();
        let clone = written.clone();
        drop(Delivering::new(axum::body::Body::from("x"), Some(written), Transport::Http2, ()));
        clone.fire(true);
        assert_eq!(seen.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn an_empty_body_dropped_unpolled_waits_for_the_flush() {
        let flushes = Flushes::default();
        let (written, seen) = recorder();
        drop(Delivering::new(axum::body::Body::empty(), Some(written), Transport::Http1(flushes.clone()), ()));
        assert_eq!(seen.load(Ordering::SeqCst), 0);
        flushes.settle(true, false);
        assert_eq!(seen.load(Ordering::SeqCst), 1);
    }
}
