//! The failure messages: parsing the four allocation failures of every era, what an
//! unrecognised message says, and the texts that explain a failure; with the reference's test
//! vectors and the real messages of docs/rules/messages.md.

pub mod failure;
pub mod raw_message;
pub mod reason;

#[cfg(test)]
mod eras;
#[cfg(test)]
pub(crate) mod messages_r;
#[cfg(test)]
mod vectors;
#[cfg(test)]
mod vectors_r;
#[cfg(test)]
mod vectors_real;
