//! What a call takes and returns, and how its input is read: [`context`] (what to compact and
//! how), [`result`] (what comes back), [`input`] (option fields read with errors that name them),
//! [`limits`] (the largest input a call accepts) and [`host_value`] (values kept in the host).

pub mod context;
pub mod host_value;
pub mod input;
pub mod limits;
pub mod result;
