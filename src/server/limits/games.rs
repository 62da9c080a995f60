//! What a lobby holds back: how many games it keeps, and how many unfinished games one
//! connection or one client address may have created at once.

use std::net::IpAddr;

use crate::protocol::Refusal;

/// The most games a lobby holds unless told otherwise.
pub const DEFAULT_MAX_ROOMS: usize = 2000;

/// Who creates a game: its connection and that connection's client address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Creator {
    pub connection: u64,
    pub ip: IpAddr,
}

/// How many games a lobby holds.
#[derive(Clone, Copy, Debug)]
pub struct LobbyLimits {
    /// Games held at once, finished ones included.
    pub max_rooms: usize,
    /// Unfinished games created from one client address at once.
    pub max_unfinished_per_address: usize,
    /// Unfinished games created by one connection at once.
    pub max_unfinished_per_connection: usize,
}

impl Default for LobbyLimits {
    /// `DEFAULT_MAX_ROOMS` games, and no limit per connection or address.
    fn default() -> LobbyLimits {
        LobbyLimits {
            max_rooms: DEFAULT_MAX_ROOMS,
            max_unfinished_per_address: usize::MAX,
            max_unfinished_per_connection: usize::MAX,
        }
    }
}

impl LobbyLimits {
    /// Refuses `creator` if they hold as many unfinished games as allowed, per connection or
    /// per address; `unfinished`: who created each unfinished game the lobby holds.
    pub fn may_create(&self, creator: Creator, unfinished: &[Creator]) -> Result<(), Refusal> {
        let open = |same: &dyn Fn(&Creator) -> bool| unfinished.iter().filter(|c| same(c)).count();
        let cap = self.max_unfinished_per_connection;
        if open(&|c| c.connection == creator.connection) >= cap {
            let message = format!("you have {cap} unfinished games, the limit; finish or resign one first");
            return Err(Refusal::too_many(message));
        }
        let max = self.max_unfinished_per_address;
        let by_address = open(&|c| c.ip == creator.ip);
        if by_address >= max {
            let message = format!(
                "your address has {by_address} unfinished games, the limit of {max}; finish or resign one first"
            );
            return Err(Refusal::too_many(message));
        }
        Ok(())
    }
}
