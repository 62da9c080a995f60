//! What a command's sender is answered, once the events the command caused are published.

use std::ops::ControlFlow;

use tokio::sync::oneshot;

use super::{Seated, Subscription};
use crate::chess::Color;
use crate::protocol::Refusal;

/// What a command's sender is answered, once the events the command caused are published:
/// a subscription then starts after them, so a joiner's first state shows their own seat.
pub(super) enum Answer {
    Nothing,
    /// The room is to close (a waiting game left alone, or the server stops).
    Close,
    Done {
        reply: oneshot::Sender<Result<(), Refusal>>,
        result: Result<(), Refusal>,
    },
    Seated {
        reply: oneshot::Sender<Result<Seated, Refusal>>,
        seat: Result<(Color, String), Refusal>,
        since: Option<u64>,
    },
    Subscribed {
        reply: oneshot::Sender<Subscription>,
        since: Option<u64>,
        /// Whose chat lines go with a fresh subscription (see the room's `subscribe`).
        reader: Option<bool>,
    },
}

impl Answer {
    /// Answers a question at once (it changes nothing): nothing is left to send.
    pub(super) fn now<T>(reply: oneshot::Sender<T>, value: T) -> Answer {
        let _ = reply.send(value);
        Answer::Nothing
    }

    /// Sends the answer, with a subscription from `subscribe` (since which version, for which
    /// reader) where it carries one; `Break` if the room is to close.
    pub(super) fn send(self, subscribe: impl FnOnce(Option<u64>, Option<bool>) -> Subscription) -> ControlFlow<()> {
        match self {
            Answer::Nothing => {}
            Answer::Close => return ControlFlow::Break(()),
            Answer::Done { reply, result } => {
                let _ = reply.send(result);
            }
            Answer::Seated { reply, seat, since } => {
                let seated = seat.map(|(color, token)| Seated { color, token, sub: subscribe(since, Some(true)) });
                let _ = reply.send(seated);
            }
            Answer::Subscribed { reply, since, reader } => {
                let _ = reply.send(subscribe(since, reader));
            }
        }
        ControlFlow::Continue(())
    }
}
