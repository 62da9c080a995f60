// Small helpers shared by the lobby and the game page.

/** `text` made safe to put inside HTML. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/** How a SEATVIEW reads for people. */
export function seatName(seat) {
  if (!seat) return '?';
  if (seat.kind === 'bot') return `Level ${seat.level}`;
  if (seat.kind === 'open') return 'Open seat';
  return 'Player';
}

/** Shows or hides the "reconnecting…" badge in the top bar. */
export function setConnectionBadge(connected) {
  const badge = document.getElementById('connection');
  if (badge) badge.hidden = connected;
  document.body.dataset.connected = String(connected);
}
