//! Single flight (docs/vendors.md "A call"): identical concurrent calls of
//! one mapped operation (the same encoded request, the key of the answer
//! cache) share one vendor request. The first caller asks the vendor; the
//! callers that arrive while it is out wait for its outcome. Only the first
//! caller gets the reply's write-back records, so they are written once.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;
use tokio::sync::watch;

use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

/// One shared outcome: the answer, or the error.
pub type Outcome = Result<Answer<Bytes>, ServiceError>;

type Slot = watch::Receiver<Option<Outcome>>;

/// The requests out now, per request.
#[derive(Default)]
pub struct SingleFlight {
    out: Mutex<HashMap<Bytes, Slot>>,
}

/// What a caller does.
pub enum Turn<'a> {
    /// Ask the vendor, then [`Leader::done`].
    Lead(Leader<'a>),
    /// Another caller asked the vendor: wait with [`Follower::outcome`].
    Follow(Follower),
}

/// The caller that asks the vendor. Dropped without [`Leader::done`] (a
/// cancelled call), it frees the key and its followers ask on their own.
pub struct Leader<'a> {
    flight: &'a SingleFlight,
    request: Bytes,
    sender: watch::Sender<Option<Outcome>>,
}

/// A caller waiting for the leader's outcome.
pub struct Follower(Slot);

impl SingleFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Bytes, Slot>> {
        self.out.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether this caller leads or follows for `request`.
    pub fn turn(&self, request: &Bytes) -> Turn<'_> {
        let mut out = self.lock();
        if let Some(slot) = out.get(request) {
            return Turn::Follow(Follower(slot.clone()));
        }
        let (sender, receiver) = watch::channel(None);
        out.insert(request.clone(), receiver);
        Turn::Lead(Leader { flight: self, request: request.clone(), sender })
    }

    /// Requests out now (tests).
    pub fn out(&self) -> usize {
        self.lock().len()
    }
}

impl Leader<'_> {
    /// Hands `outcome` to the followers.
    pub fn done(self, outcome: &Outcome) {
        self.sender.send_replace(Some(outcome.clone()));
    }
}

impl Drop for Leader<'_> {
    fn drop(&mut self) {
        self.flight.lock().remove(&self.request);
    }
}

impl Follower {
    /// The leader's outcome; `None` when the leader was cancelled first.
    pub async fn outcome(mut self) -> Option<Outcome> {
        match self.0.wait_for(Option::is_some).await {
            Ok(outcome) => outcome.clone(),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn followers_get_the_leaders_outcome_and_the_key_is_freed() {
        let flight = SingleFlight::default();
        let request = Bytes::from_static(b"q");
        let Turn::Lead(leader) = flight.turn(&request) else { panic!("the first caller leads") };
        let Turn::Follow(follower) = flight.turn(&request) else { panic!("the second follows") };
        assert!(matches!(flight.turn(&Bytes::from_static(b"other")), Turn::Lead(_)), "another request leads");
        let answer: Outcome = Ok(Answer::Found(Bytes::from_static(b"a")));
        let waiting = tokio::spawn(follower.outcome());
        leader.done(&answer);
        assert_eq!(waiting.await.unwrap(), Some(answer));
        assert_eq!(flight.out(), 0);

        let Turn::Lead(leader) = flight.turn(&request) else { panic!("the key was freed") };
        let Turn::Follow(follower) = flight.turn(&request) else { panic!() };
        drop(leader);
        assert_eq!(follower.outcome().await, None, "a cancelled leader leaves the followers to ask");
    }
}
