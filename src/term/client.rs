//! The WebSocket link to the server: opening it, sending [`ClientMessage`]s and receiving
//! [`ServerMessage`]s as typed values, and closing it politely.

use std::time::Duration;

use futures::{FutureExt, SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::TermError;
use crate::protocol::{Request, ServerMessage};

/// How long opening a connection (TCP and the WebSocket handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a polite close may wait for the server's answer before the socket is just dropped.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// What came from the server.
#[derive(Debug)]
pub enum Incoming {
    /// Boxed: a `state` is large, and most values of this type are small messages.
    Message(Box<ServerMessage>),
    /// The connection closed or broke.
    Closed,
}

/// An open connection to a gambit server.
pub struct Connection {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Connection {
    /// Connects to `url` (a `ws://` address).
    /// Carries the API token of `--token`, else the session kept by `gambit play --login` for
    /// that server, if there is one.
    pub async fn open(url: &str) -> Result<Connection, TermError> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let fail = |reason: String| TermError::Connect { url: url.to_string(), reason };
        let mut request = url.into_client_request().map_err(|e| fail(e.to_string()))?;
        if let Some((name, value)) = super::login::credentials_for(url) {
            if let Ok(value) = value.parse() {
                request.headers_mut().insert(name, value);
            }
        }
        let connecting = tokio_tungstenite::connect_async_with_config(request, None, true);
        match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(Ok((ws, _response))) => Ok(Connection { ws }),
            Ok(Err(e)) => Err(fail(e.to_string())),
            Err(_) => Err(fail(format!("no answer within {} seconds", CONNECT_TIMEOUT.as_secs()))),
        }
    }

    /// Sends one message; an error means the connection is gone.
    pub async fn send(&mut self, request: &Request) -> Result<(), TermError> {
        let text = serde_json::to_string(request).map_err(|e| TermError::Protocol(e.to_string()))?;
        self.ws.send(Message::text(text)).await.map_err(|_| TermError::Closed)
    }

    /// The next message from the server. Frames this client does not understand (a newer
    /// server's messages, binary frames) are skipped rather than treated as fatal.
    pub async fn recv(&mut self) -> Incoming {
        loop {
            if let Some(incoming) = Self::decode(self.ws.next().await) {
                return incoming;
            }
        }
    }

    /// The next message if one is already waiting, without blocking; lets the caller show a
    /// burst of events (a move and the bot's instant reply) as one screen.
    pub fn recv_ready(&mut self) -> Option<Incoming> {
        loop {
            let frame = self.ws.next().now_or_never()?;
            if let Some(incoming) = Self::decode(frame) {
                return Some(incoming);
            }
        }
    }

    /// One frame as an [`Incoming`], or None for a frame to skip.
    fn decode(frame: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>) -> Option<Incoming> {
        match frame {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => Some(Incoming::Closed),
            Some(Ok(Message::Text(text))) => {
                serde_json::from_str(text.as_str()).ok().map(|m| Incoming::Message(Box::new(m)))
            }
            // Pings are answered by tungstenite itself.
            Some(Ok(_)) => None,
        }
    }

    /// Closes the connection with a close frame, waiting briefly for the server's reply.
    pub async fn close(mut self) {
        let closing = async {
            let _ = self.ws.close(None).await;
            // The server answers with its own close frame; read up to it.
            while let Some(Ok(_)) = self.ws.next().await {}
        };
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, closing).await;
    }
}

/// The servers a client may use (one, or the nodes of a cluster), and the one in use.
pub struct Servers {
    urls: Vec<String>,
    current: usize,
}

impl Servers {
    /// Connects to the first server that answers.
    pub async fn open(urls: Vec<String>) -> Result<(Servers, Connection), TermError> {
        let mut first_error = None;
        for (current, url) in urls.iter().enumerate() {
            match Connection::open(url).await {
                Ok(conn) => return Ok((Servers { urls, current }, conn)),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error.unwrap_or(TermError::BadUrl { url: String::new(), reason: "no server address".into() }))
    }

    /// Every server's address, for a message that none of them answers.
    pub fn all(&self) -> String {
        self.urls.join(", ")
    }

    pub fn url(&self) -> &str {
        &self.urls[self.current]
    }

    /// After a lost connection: the next server (a node stopping tells its clients to go on
    /// to another; a dead one does not answer).
    pub fn advance(&mut self) -> &str {
        self.current = (self.current + 1) % self.urls.len();
        self.url()
    }
}
