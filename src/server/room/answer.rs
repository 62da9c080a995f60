//! What a command's sender is answered, once the events the command caused are published.

use std::ops::ControlFlow;

use tokio::sync::oneshot;

use super::{Reply, Seated, Subscription};
use crate::chess::Color;
use crate::protocol::Refusal;

/// What the task does once the events of what it handled are published: answer a command's
/// sender (a subscription then starts after those events, so a joiner's first state shows
/// their own seat), close, or nothing.
pub(super) enum Answer {
    Nothing,
    /// The room is to close (a waiting game left alone, or the server stops).
    Close,
    /// Answer a command (None: its sender wants no answer).
    To {
        reply: Option<oneshot::Sender<Result<Reply, Refusal>>>,
        response: Response,
    },
}

/// What a command came to, to be turned into its reply after the publish step.
pub(super) enum Response {
    Ready(Result<Reply, Refusal>),
    /// A seat (side and token), whose subscription starts after version `since` (or afresh).
    Seated {
        seat: Result<(Color, String), Refusal>,
        since: Option<u64>,
    },
    Subscribed {
        since: Option<u64>,
        /// Whose chat lines go with a fresh subscription (see the room's `subscribe`).
        reader: Option<bool>,
    },
}

impl Answer {
    /// Sends the answer, with a subscription from `subscribe` (since which version, for which
    /// reader) where it carries one; `Break` if the room is to close.
    pub(super) fn send(self, subscribe: impl FnOnce(Option<u64>, Option<bool>) -> Subscription) -> ControlFlow<()> {
        match self {
            Answer::Nothing | Answer::To { reply: None, .. } => {}
            Answer::Close => return ControlFlow::Break(()),
            Answer::To { reply: Some(reply), response } => {
                let reply_with = match response {
                    Response::Ready(result) => result,
                    Response::Seated { seat, since } => seat.map(|(color, token)| {
                        Reply::Seated(Seated { color, token, sub: subscribe(since, Some(true)) })
                    }),
                    Response::Subscribed { since, reader } => Ok(Reply::Subscribed(subscribe(since, reader))),
                };
                let _ = reply.send(reply_with);
            }
        }
        ControlFlow::Continue(())
    }
}
