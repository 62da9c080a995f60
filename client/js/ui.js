// Small helpers shared by the lobby and the game page.

/** How the sides read for people. */
export const SIDE_NAMES = { white: 'White', black: 'Black' };

/** `text` made safe to put inside HTML. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/**
 * How a SEATVIEW reads for people: the name the server gives a taken seat (a person's chosen
 * name, "Anonymous", or a bot's label "Level 6 · ~1000"), else what the seat is. Plain text: escape it for HTML.
 */
/** True for a person's seat under a name chosen without an account (anyone may choose any free name). */
export function isGuest(seat) {
  return seat?.kind === 'human' && !seat.account && typeof seat.name === 'string' && seat.name !== 'Anonymous';
}

/** The mark after a guest's name, as HTML; '' for anyone else. */
export function guestMark(seat) {
  return isGuest(seat) ? '<span class="guest" title="a name chosen without an account">guest</span>' : '';
}

export function seatName(seat) {
  if (!seat) return '?';
  if (seat.kind === 'open') return 'Open seat';
  if (seat.kind === 'bot' && typeof seat.label === 'string' && seat.label.trim()) return seat.label;
  // An engine seat reads as its label: "Stockfish · Skill Level 3".
  if (seat.kind === 'engine') return seat.label || seat.name || 'Engine';
  if (typeof seat.name === 'string' && seat.name.trim()) return seat.name;
  // A server from before names.
  if (seat.kind === 'bot') return `Level ${seat.level}`;
  return 'Player';
}

/** Shows or hides the "reconnecting…" badge in the top bar. */
export function setConnectionBadge(connected) {
  const badge = document.getElementById('connection');
  if (badge) badge.hidden = connected;
  document.body.dataset.connected = String(connected);
}

/**
 * Sets `node`'s markup only when it differs from what was set last: rewriting identical markup
 * would replace the buttons under a user's pointer or keyboard focus on every watcher update.
 */
export function setHtml(node, html) {
  if (node.dataset.html === html) return;
  node.dataset.html = html;
  node.innerHTML = html;
}

/** The elements under `root` named by `selectors` (`{name: selector}`), as `{name: element}`. */
export function pick(root, selectors) {
  return Object.fromEntries(Object.entries(selectors).map(([name, selector]) => [name, root.querySelector(selector)]));
}

/**
 * A top-bar button that opens a panel: the button toggles it, Escape in the panel closes it
 * (focus back on the button), a click anywhere outside `slot` closes it. Returns `setOpen(open)`.
 */
export function dropdown(slot, toggle, panel) {
  const setOpen = (open) => {
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
  };
  toggle.addEventListener('click', () => setOpen(panel.hidden));
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      setOpen(false);
      toggle.focus();
    }
  });
  document.addEventListener('click', (e) => {
    if (!panel.hidden && !slot.contains(e.target)) setOpen(false);
  });
  return setOpen;
}
