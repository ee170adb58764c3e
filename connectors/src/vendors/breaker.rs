//! A vendor's circuit breaker (docs/vendors.md `[breaker]`): after `failures`
//! consecutive failed calls the circuit opens and calls fail at once for
//! `open_secs`; then one trial call is let through (half-open): its success
//! closes the circuit, its failure opens it again.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::mapping;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Closed {
        failures: u32,
    },
    Open {
        until: Instant,
    },
    /// A trial call is out.
    HalfOpen,
}

/// One vendor's breaker.
#[derive(Debug)]
pub struct CircuitBreaker {
    threshold: u32,
    open_for: Duration,
    state: Mutex<State>,
}

/// Why a call may not go out now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Open {
    /// Until the next trial call.
    pub retry_after: Duration,
}

impl CircuitBreaker {
    /// A closed breaker that opens after `settings.failures` consecutive
    /// failed calls (0 = never) and stays open `settings.open_secs` seconds.
    pub fn new(settings: &mapping::Breaker) -> CircuitBreaker {
        CircuitBreaker {
            threshold: settings.failures,
            open_for: Duration::from_secs(settings.open_secs),
            state: Mutex::new(State::Closed { failures: 0 }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether a call may go out now; an open circuit past its time lets
    /// this one call through as the trial.
    ///
    /// # Errors
    /// [`Open`] while the circuit is open or a trial call is out.
    pub fn admit(&self) -> Result<(), Open> {
        let mut state = self.lock();
        match *state {
            State::Closed { .. } => Ok(()),
            State::Open { until } => {
                let now = Instant::now();
                if now >= until {
                    *state = State::HalfOpen;
                    Ok(())
                } else {
                    Err(Open { retry_after: until - now })
                }
            }
            State::HalfOpen => Err(Open { retry_after: Duration::from_secs(1) }),
        }
    }

    /// A call came back well (or failed for the caller's own reasons).
    pub fn succeeded(&self) {
        *self.lock() = State::Closed { failures: 0 };
    }

    /// A call failed on the vendor's side.
    pub fn failed(&self) {
        if self.threshold == 0 {
            return;
        }
        let mut state = self.lock();
        let failures = match *state {
            State::Closed { failures } => failures + 1,
            State::HalfOpen | State::Open { .. } => self.threshold,
        };
        *state = if failures >= self.threshold {
            State::Open { until: Instant::now() + self.open_for }
        } else {
            State::Closed { failures }
        };
    }

    /// Whether the circuit is open now (calls fail at once).
    pub fn is_open(&self) -> bool {
        matches!(*self.lock(), State::Open { until } if Instant::now() < until)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_the_threshold_and_recovers_through_one_trial() {
        let breaker = CircuitBreaker::new(&mapping::Breaker { failures: 2, open_secs: 0 });
        breaker.failed();
        assert!(breaker.admit().is_ok(), "one failure is below the threshold");
        breaker.failed();
        // open_secs 0: the trial is due at once, and only one goes out.
        assert!(breaker.admit().is_ok());
        assert!(breaker.admit().is_err(), "a trial call is out");
        breaker.failed();
        assert!(breaker.admit().is_ok(), "a failed trial opens again (for 0 s)");
        breaker.succeeded();
        assert!(breaker.admit().is_ok() && breaker.admit().is_ok(), "a good trial closes it");

        let long = CircuitBreaker::new(&mapping::Breaker { failures: 1, open_secs: 60 });
        long.failed();
        let open = long.admit().unwrap_err();
        assert!(open.retry_after > Duration::from_secs(50) && long.is_open());
    }

    #[test]
    fn a_zero_threshold_never_opens() {
        let breaker = CircuitBreaker::new(&mapping::Breaker { failures: 0, open_secs: 60 });
        for _ in 0..10 {
            breaker.failed();
        }
        assert!(breaker.admit().is_ok());
    }
}
