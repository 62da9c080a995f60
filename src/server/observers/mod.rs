//! Observers: tasks that follow a room like a spectator and do something with its events.

pub mod textlog;
