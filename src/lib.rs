//! gambit: a multiplayer chess server and the tools around it. The rules core lives in
//! [`chess`]; see DESIGN.md for the layout of the rest.

pub mod chess;
