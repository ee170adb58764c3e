//! The request body wrapper of the listener: a read deadline
//! ([`TimedBody`]). The response side is `crate::delivery::Delivering`.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

/// The error a `TimedBody` yields when its deadline passes before the
/// body's end: the client sent it too slowly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTimeout {
    /// The limit that passed, in seconds.
    pub secs: u64,
}

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request body did not arrive within {} s (MEDIAOPS_BODY_READ_TIMEOUT_SECS)", self.secs)
    }
}

impl std::error::Error for BodyTimeout {}

/// The [`BodyTimeout`] somewhere in `error`'s source chain, if any (the
/// extractors of axum and tonic wrap body errors once or twice).
pub fn body_timeout(error: &(dyn std::error::Error + 'static)) -> Option<BodyTimeout> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(timeout) = error.downcast_ref::<BodyTimeout>() {
            return Some(*timeout);
        }
        next = error.source();
    }
    None
}

/// A request body that fails with [`BodyTimeout`] when it is read after
/// `deadline` and its next frame is not there yet. Data that has arrived is
/// always handed out first, so a handler that reads late never fails a
/// client that sent on time.
pub struct TimedBody<B> {
    inner: B,
    deadline: Instant,
    secs: u64,
    /// Created the first time the inner body is not ready.
    sleep: Option<Pin<Box<Sleep>>>,
}

impl<B> TimedBody<B> {
    /// `inner` must end before `deadline`; `secs` is the limit, for the error.
    pub fn new(inner: B, deadline: Instant, secs: u64) -> Self {
        TimedBody { inner, deadline, secs, sleep: None }
    }
}

impl<B> Body for TimedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let deadline = self.deadline;
        let sleep = self.sleep.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimeout { secs: self.secs })))),
            Poll::Pending => Poll::Pending,
        }
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

    #[test]
    fn the_timeout_is_found_through_wrapping_errors() {
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(BodyTimeout { secs: 3 });
        let wrapped = axum::Error::new(axum::Error::new(boxed));
        assert_eq!(body_timeout(&wrapped), Some(BodyTimeout { secs: 3 }));
        let other = axum::Error::new(std::io::Error::other("reset"));
        assert_eq!(body_timeout(&other), None);
    }
}
