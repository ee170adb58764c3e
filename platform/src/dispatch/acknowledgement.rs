//! The caller's word that an answer was delivered, for a caller that passes
//! the answer on (the REST gateway): it sends the metadata
//! [`mediaops_proto::delivery::ACK_METADATA`] and its one request message,
//! and keeps its request stream open; once it has written the answer to its
//! own client it ends the stream (the acknowledgement), and if it could not
//! it resets the stream. The core commits the call only on the
//! acknowledgement (docs/billing.md "When a call is charged").
//!
//! [`FirstMessage`] hands tonic the request message alone, as a unary
//! request ends; [`AckWaiter`] keeps the rest of the stream and reads the
//! verdict from it. A caller without the metadata is acknowledged at once.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};

/// How long the core waits for the acknowledgement after its answer was
/// taken: a caller silent that long (neither an end nor a reset) is taken
/// as not delivered and the call is released.
pub const ACK_WAIT: Duration = Duration::from_secs(60);

type Boxed = Pin<Box<dyn Body<Data = Bytes, Error = tonic::Status> + Send>>;

/// The request body both halves share.
struct Stream {
    body: Boxed,
    /// The caller ended its stream.
    ended: bool,
}

/// The request body tonic reads: the first message, then its end.
pub struct FirstMessage {
    stream: Arc<Mutex<Stream>>,
    /// Ack mode: the body ends after the first message.
    split: bool,
    /// Bytes of the first message (5-byte prefix included), once known.
    length: Option<usize>,
    /// Bytes handed on so far.
    seen: usize,
    /// The prefix bytes seen so far (its length is in bytes 1..5).
    prefix: Vec<u8>,
}

/// The caller's verdict on the answer, read from the rest of its stream.
pub struct AckWaiter {
    stream: Arc<Mutex<Stream>>,
}

/// Splits `body` when `acknowledging` (the caller sent the metadata);
/// otherwise the body passes whole and the waiter says "delivered" at once.
pub fn split<B>(body: B, acknowledging: bool) -> (FirstMessage, AckWaiter)
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>> + Send,
{
    let body: Boxed = Box::pin(MapError(Box::pin(body)));
    let stream = Arc::new(Mutex::new(Stream { body, ended: !acknowledging }));
    let first =
        FirstMessage { stream: stream.clone(), split: acknowledging, length: None, seen: 0, prefix: Vec::new() };
    (first, AckWaiter { stream })
}

impl AckWaiter {
    /// Whether the caller acknowledged the answer: it ended its stream
    /// (true), or reset it, sent more, or said nothing for [`ACK_WAIT`]
    /// (false).
    pub async fn delivered(self) -> bool {
        let verdict = std::future::poll_fn(|cx| {
            let mut stream = self.stream.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if stream.ended {
                    return Poll::Ready(true);
                }
                match std::task::ready!(stream.body.as_mut().poll_frame(cx)) {
                    None => return Poll::Ready(true),
                    Some(Ok(frame)) if frame.data_ref().is_some_and(|d| d.is_empty()) => {}
                    Some(Ok(frame)) if frame.is_trailers() => return Poll::Ready(true),
                    Some(_) => return Poll::Ready(false),
                }
            }
        });
        tokio::time::timeout(ACK_WAIT, verdict).await.unwrap_or(false)
    }
}

impl Body for FirstMessage {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        let this = &mut *self;
        if this.split && this.length.is_some_and(|length| this.seen >= length) {
            return Poll::Ready(None);
        }
        let shared = this.stream.clone();
        let mut stream = shared.lock().unwrap_or_else(|e| e.into_inner());
        let frame = std::task::ready!(stream.body.as_mut().poll_frame(cx));
        match &frame {
            None => stream.ended = true,
            Some(Ok(frame)) if this.split => {
                if let Some(data) = frame.data_ref() {
                    this.count(data);
                    if this.length.is_some_and(|length| this.seen > length) {
                        return Poll::Ready(Some(Err(tonic::Status::invalid_argument(
                            "a call that acknowledges its answer sends one request message",
                        ))));
                    }
                }
            }
            Some(_) => {}
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.split && self.length.is_some_and(|length| self.seen >= length)
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

impl FirstMessage {
    /// Counts `data` towards the first message, reading its length from the
    /// gRPC prefix (1 byte flag, 4 bytes big-endian length).
    fn count(&mut self, data: &Bytes) {
        if self.length.is_none() {
            let wanted = 5 - self.prefix.len();
            self.prefix.extend(data.chunk().iter().take(wanted));
            if self.prefix.len() == 5 {
                let length = u32::from_be_bytes([self.prefix[1], self.prefix[2], self.prefix[3], self.prefix[4]]);
                self.length = Some(5 + length as usize);
            }
        }
        self.seen += data.len();
    }
}

/// A body whose errors become a `tonic::Status`.
struct MapError<B>(Pin<Box<B>>);

impl<B> Body for MapError<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        self.0.as_mut().poll_frame(cx).map(|frame| frame.map(|f| f.map_err(|e| tonic::Status::from_error(e.into()))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.0.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// A request body: `frames`, then its end, or nothing more if `open`.
    struct Frames {
        frames: VecDeque<Result<Frame<Bytes>, std::io::Error>>,
        open: bool,
    }

    impl Body for Frames {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            match self.frames.pop_front() {
                Some(frame) => Poll::Ready(Some(frame)),
                None if self.open => Poll::Pending,
                None => Poll::Ready(None),
            }
        }
    }

    /// One gRPC message of `payload` bytes, split over two frames.
    fn message(payload: usize) -> Vec<Result<Frame<Bytes>, std::io::Error>> {
        let mut bytes = vec![0u8];
        bytes.extend_from_slice(&(payload as u32).to_be_bytes());
        bytes.extend(std::iter::repeat_n(7u8, payload));
        let rest = bytes.split_off(3);
        vec![Ok(Frame::data(Bytes::from(bytes))), Ok(Frame::data(Bytes::from(rest)))]
    }

    async fn read_all(mut body: FirstMessage) -> usize {
        let mut read = 0;
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            read += frame.unwrap().into_data().map_or(0, |d| d.len());
        }
        read
    }

    #[tokio::test]
    async fn the_message_ends_the_body_and_the_stream_end_acknowledges() {
        let (first, waiter) = split(Frames { frames: message(10).into(), open: false }, true);
        assert_eq!(read_all(first).await, 15);
        assert!(waiter.delivered().await);
    }

    #[tokio::test]
    async fn a_reset_stream_is_no_acknowledgement() {
        let mut frames: VecDeque<_> = message(10).into();
        frames.push_back(Err(std::io::Error::other("stream reset")));
        let (first, waiter) = split(Frames { frames, open: false }, true);
        assert_eq!(read_all(first).await, 15);
        assert!(!waiter.delivered().await);
    }

    #[tokio::test]
    async fn tonic_sees_the_end_while_the_caller_keeps_its_stream_open() {
        let (first, waiter) = split(Frames { frames: message(3).into(), open: true }, true);
        assert_eq!(read_all(first).await, 8);
        let silent = tokio::time::timeout(Duration::from_millis(50), waiter.delivered()).await;
        assert!(silent.is_err(), "no verdict while the caller says nothing");
    }

    #[tokio::test]
    async fn a_caller_that_does_not_acknowledge_is_delivered_at_once() {
        let (first, waiter) = split(Frames { frames: message(3).into(), open: true }, false);
        assert!(waiter.delivered().await);
        drop(first);
    }
}
