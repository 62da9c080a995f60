// The WebSocket to /ws: JSON in and out, request ids, and reconnection with back-off.
//
// The page never trusts a connection to survive: when it closes, the owner is told (to show
// "reconnecting…"), and a new socket is opened after a growing, jittered delay. On every open
// the owner's `onOpen` runs again, which is where a game page resumes its seat or watch with the
// last version it saw, and the lobby re-subscribes to the list.

const DELAYS_MS = [300, 700, 1500, 3000, 6000, 10000];

export class Connection {
  /**
   * @param {object} handlers `onOpen()`, `onMessage(msg)`, `onStatus(connected: boolean)`.
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.socket = null;
    this.attempt = 0;
    this.nextId = 1;
    this.timer = null;
    this.stopped = false;
    // Reconnect at once when the network comes back instead of waiting out the delay.
    window.addEventListener('online', () => this.reconnectSoon(0));
  }

  get url() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}/ws`;
  }

  get connected() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  open() {
    clearTimeout(this.timer);
    this.timer = null;
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch {
      this.reconnectSoon();
      return;
    }
    this.socket = socket;
    socket.addEventListener('open', () => {
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.handlers.onStatus?.(true);
      this.handlers.onOpen?.();
    });
    socket.addEventListener('message', (event) => {
      if (this.socket !== socket || typeof event.data !== 'string') return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return; // The server only sends JSON; anything else is not ours to act on.
      }
      if (msg && typeof msg.type === 'string') this.handlers.onMessage?.(msg);
    });
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.handlers.onStatus?.(false);
      if (!this.stopped) this.reconnectSoon();
    });
    // An error is always followed by close, which does the work.
  }

  reconnectSoon(delay) {
    if (this.stopped || this.socket) return;
    clearTimeout(this.timer);
    const base = delay ?? DELAYS_MS[Math.min(this.attempt, DELAYS_MS.length - 1)];
    this.attempt += 1;
    // Jitter spreads out many pages reconnecting after a server restart.
    const wait = delay === 0 ? 0 : base * (0.8 + Math.random() * 0.4);
    this.timer = setTimeout(() => this.open(), wait);
  }

  /** Sends `msg` with a fresh request id; returns the id, or null when not connected. */
  send(msg) {
    if (!this.connected) return null;
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  /**
   * Closes the socket for good, quietly: no "reconnecting", no new socket (a page that no longer
   * needs one, such as an archived game's).
   */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.close();
  }

  /** Closes the socket and drops it, as a network failure would (used to test resilience). */
  drop() {
    this.socket?.close();
  }
}
